package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/service"
	"github.com/walab/walab/internal/testenv"
)

// proc is a child process of the test (internal/service: its own process
// group, stopped at the test's end with whatever it started; a
// parent-death signal should the test binary die first), its output in
// dir/<name>.log.
type proc struct {
	*service.Process
	name string
	cmd  *exec.Cmd
	log  string
}

// exited is the process's state once it has exited, nil while it runs.
func (p *proc) exited() *os.ProcessState { return p.Exited() }

func start(t *testing.T, dir, name, bin string, args ...string) *proc {
	t.Helper()
	p := testenv.StartCmd(t, service.Cmd{Name: name, Bin: bin, Args: args, Dir: dir, Log: filepath.Join(dir, name+".log")})
	return &proc{Process: p, name: name, cmd: p.Cmd, log: p.Log}
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

// waitHTTP polls url until it answers 200, the process exits or within
// passes.
func waitHTTP(t *testing.T, p *proc, url string, within time.Duration) {
	t.Helper()
	if err := p.WaitReady(context.Background(), url, within); err != nil {
		t.Fatalf("%v\n%s", err, p.Tail(2000))
	}
}

// preamble is what every e2e test starts with: it skips with -short,
// requires the tools (failing under CI=true without one) and builds the
// module's commands into the test's directory; bins maps each tool and
// command to its path.
func preamble(t *testing.T, tools []string, commands ...string) (dir string, bins map[string]string) {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped with -short")
	}
	bins = map[string]string{}
	for _, b := range tools {
		bins[b] = testenv.RequireBinary(t, b)
	}
	dir = t.TempDir()
	for _, c := range commands {
		bin, ok := goBuild(t, dir, c)
		require.True(t, ok, "./%s/main.go is missing", c)
		bins[c] = bin
	}
	return dir, bins
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
