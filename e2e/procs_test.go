package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/testenv"
)

// proc is a child process of the test, in its own process group so that
// cleanup kills it and anything it started; Pdeathsig kills it if the test
// binary dies first.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed once cmd.Wait returned: ProcessState is then set
}

// exited is the process's state once it has exited, nil while it runs.
func (p *proc) exited() *os.ProcessState {
	select {
	case <-p.done:
		return p.cmd.ProcessState
	default:
		return nil
	}
}

func start(t *testing.T, dir, name, bin string, args ...string) *proc {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	p := &proc{name: name, cmd: cmd, log: logPath, done: done}
	go func() { _ = cmd.Wait(); f.Close(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("--- %s log (tail) ---\n%s", name, tail(logPath, 3000))
		}
	})
	return p
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// waitHTTP polls url until it answers 200 or the deadline passes.
func waitHTTP(t *testing.T, p *proc, url string, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if p != nil && p.exited() != nil {
			t.Fatalf("%s exited: %s\n%s", p.name, p.exited(), tail(p.log, 2000))
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s not ready at %s within %s (last error %v)", p.name, url, within, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// eventually polls cond until it returns "" (success) or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(within)
	last := ""
	for time.Now().Before(deadline) {
		if last = cond(); last == "" {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s: %s", what, within, last)
}

// goBuild builds a main package of the module into dir; ok is false when
// the package does not exist yet (it is written concurrently).
func goBuild(t *testing.T, dir, pkg string) (bin string, ok bool) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("..", pkg, "main.go")); err != nil {
		return "", false
	}
	bin = filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, "./"+pkg)
	cmd.Dir = ".."
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build ./%s: %v\n%s", pkg, err, out.String())
	}
	return bin, true
}

func addr(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }

func execLookPath(name string) (string, error) { return exec.LookPath(name) }

// writeE2ERules writes dir/rules.yml: walab's rules generated from
// alerts/config.yml with testdata/rules-override.yml (a 20 s "hour").
func writeE2ERules(t *testing.T, dir string) {
	t.Helper()
	base, err := alerts.LoadConfig("../alerts/config.yml")
	require.NoError(t, err)
	cfg, err := alerts.Override(base, "testdata/rules-override.yml")
	require.NoError(t, err)
	rules, err := alerts.Generate(cfg).Marshal()
	require.NoError(t, err)
	writeFile(t, dir, "rules.yml", string(rules))
}

// startPrometheus runs Prometheus in dir with the e2e rules (rules.yml,
// written by writeE2ERules), scraping each job's one target every second,
// and returns its address and API once it is ready.
func startPrometheus(t *testing.T, dir, bin string, jobs ...[2]string) (string, v1.API) {
	t.Helper()
	return startPrometheusEvery(t, dir, bin, "1s", jobs...)
}

// startPrometheusEvery is startPrometheus scraping every interval (each
// scrape may take as long).
func startPrometheusEvery(t *testing.T, dir, bin, interval string, jobs ...[2]string) (string, v1.API) {
	t.Helper()
	promAddr := addr(testenv.FreePort(t))
	cfg := "global:\n  scrape_interval: " + interval + "\n  evaluation_interval: 1s\nrule_files: [rules.yml]\nscrape_configs:\n"
	for _, j := range jobs {
		cfg += fmt.Sprintf("  - job_name: %s\n    static_configs: [{targets: [%q]}]\n", j[0], j[1])
	}
	writeFile(t, dir, "prometheus.yml", cfg)
	prom := start(t, dir, "prometheus", bin, "--config.file=prometheus.yml", "--storage.tsdb.path=prom-data",
		"--web.listen-address="+promAddr, "--storage.tsdb.retention.time=1h")
	waitHTTP(t, prom, "http://"+promAddr+"/-/ready", 60*time.Second)
	client, err := api.NewClient(api.Config{Address: "http://" + promAddr})
	require.NoError(t, err)
	return promAddr, v1.NewAPI(client)
}
