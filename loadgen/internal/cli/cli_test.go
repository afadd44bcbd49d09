package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/runner"
	"github.com/walab/walab/internal/testenv"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// buildLoadgen builds the real binary once for all tests of the package.
func buildLoadgen(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "loadgen-test")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "loadgen")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/walab/walab/loadgen").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func mysqlFlags(db string) []string {
	host, port, _ := strings.Cut(testenv.MariaDBAddr(), ":")
	return []string{"--mysql-host", host, "--mysql-port", port, "--mysql-user", "root", "--mysql-db", db}
}

// TestSignalStopsCleanly runs the binary, waits for report lines, sends
// SIGINT, and expects exit 0, the sysbench summary and the JSON file.
func TestSignalStopsCleanly(t *testing.T) {
	testenv.MariaDB(t, "walab_test_oltp_cli_signal")
	bin := buildLoadgen(t)
	common := append([]string{"--tables", "1", "--table_size", "1000"}, mysqlFlags("walab_test_oltp_cli_signal")...)
	out, err := exec.Command(bin, append([]string{"oltp_read_write", "prepare"}, common...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			port := testenv.FreePort(t)
			result := filepath.Join(t.TempDir(), "result.json")
			cmd := exec.Command(bin, append([]string{"oltp_read_write", "run", "--threads", "2", "--time", "0",
				"--report-interval", "1", "--result-json", result, "--run-id", "sigtest", "--scenario", "streams",
				fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port)}, common...)...)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			cmd.Stderr = io.Discard
			require.NoError(t, cmd.Start())
			sc := bufio.NewScanner(stdout)
			var lines []string
			for sc.Scan() {
				lines = append(lines, sc.Text())
				if strings.HasPrefix(sc.Text(), "[ ") {
					break
				}
			}
			// The endpoint serves the run's series with their labels.
			body := scrape(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
			require.Contains(t, body, `walab_loadgen_run_info{run_id="sigtest",scenario="streams",target="default",workload="oltp_read_write"} 1`)
			require.Contains(t, body, `walab_loadgen_transactions_total{outcome="committed",target="default",type="oltp_read_write",workload="oltp_read_write"}`)
			require.Contains(t, body, `walab_loadgen_active_terminals{target="default"} 2`)

			require.NoError(t, cmd.Process.Signal(sig))
			rest, _ := io.ReadAll(stdout)
			require.NoError(t, cmd.Wait(), "exit status after %v", sig)
			all := strings.Join(lines, "\n") + string(rest)
			require.Contains(t, all, "SQL statistics:")
			require.Contains(t, all, "Threads fairness:")

			var doc struct {
				Results []struct {
					Target       string `json:"target"`
					RunID        string `json:"run_id"`
					Transactions uint64 `json:"transactions"`
					Drained      bool   `json:"drained"`
				} `json:"results"`
			}
			b, err := os.ReadFile(result)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &doc))
			require.Len(t, doc.Results, 1)
			require.Equal(t, "sigtest", doc.Results[0].RunID)
			require.True(t, doc.Results[0].Drained)
			require.Greater(t, doc.Results[0].Transactions, uint64(0))
		})
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	var last error
	for range 50 {
		resp, err := http.Get(url)
		if err == nil {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && strings.Contains(string(b), "walab_loadgen_transactions_total") {
				return string(b)
			}
			last = err
		} else {
			last = err
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("scrape %s: %v", url, last)
	return ""
}

// TestMultiTarget drives two databases from one process, each with its
// own label, report prefix and summary.
func TestMultiTarget(t *testing.T) {
	testenv.MariaDB(t, "walab_test_oltp_cli_a")
	testenv.MariaDB(t, "walab_test_oltp_cli_b")
	bin := buildLoadgen(t)
	addr := testenv.MariaDBAddr()
	targets := []string{
		"--target", "a=root@tcp(" + addr + ")/walab_test_oltp_cli_a",
		"--target", "b=mysql://root@" + addr + "/walab_test_oltp_cli_b",
		"--tables", "2", "--table-size", "300", "--threads", "2",
	}
	for _, phase := range []string{"prepare", "run", "check", "cleanup"} {
		args := append([]string{"oltp_write_only", phase}, targets...)
		if phase == "run" {
			args = append(args, "--events", "50", "--web.disable", "--report-interval", "1")
		}
		out, err := exec.Command(bin, args...).CombinedOutput()
		require.NoError(t, err, "%s: %s", phase, out)
		switch phase {
		case "run":
			require.Contains(t, string(out), "== target a ==")
			require.Contains(t, string(out), "== target b ==")
			require.Equal(t, 2, strings.Count(string(out), "transactions:                        50 "))
		case "check":
			require.Equal(t, 6, strings.Count(string(out), "[a] PASS"), "%s", out)
			require.Equal(t, 6, strings.Count(string(out), "[b] PASS"), "%s", out)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"oltp_read_write", "run", "--skip_trx=perhaps"}, "want on or off"},
		{[]string{"oltp_read_write", "run", "--target", "x"}, "want name="},
		{[]string{"oltp_read_write", "run", "--rand-type", "zipf", "--web.disable"}, "invalid --rand-type"},
		{[]string{"oltp_read_write", "run", "--target", "a=p.conf"}, "props file is for tpcc only"},
		{[]string{"nosuch", "run"}, "expected command"},
		// Issue 33: --rate 1e12 was accepted (an intended start every picosecond).
		{[]string{"oltp_read_write", "run", "--rate", "1e12", "--web.disable"}, "--rate="},
		{[]string{"oltp_read_write", "run", "--max-unreachable", "1.5", "--web.disable"}, "--max-unreachable="},
		// Issue 42: NaN passed every range (exit 0 at 68.5 % unreachable).
		{[]string{"oltp_read_write", "run", "--max-unreachable=NaN", "--web.disable"}, "not a finite number"},
		{[]string{"oltp_read_write", "run", "--rate=NaN", "--web.disable"}, "not a finite number"},
		{[]string{"oltp_read_write", "run", "--rate=+Inf", "--web.disable"}, "not a finite number"},
		{[]string{"oltp_read_write", "run", "--percentile=nan", "--web.disable"}, "not a finite number"},
		// Issue 54: --time=1e10 overflowed the duration (a negative run time).
		{[]string{"oltp_read_write", "run", "--time=1e10", "--web.disable"}, "--time="},
	} {
		var stderr strings.Builder
		code := Main(tc.args, io.Discard, &stderr)
		require.Equal(t, 2, code, "%v", tc.args)
		require.Contains(t, stderr.String(), tc.want)
	}
}

// TestTPCCProps wires a BenchmarkSQL props file through to the tpcc
// workload: on an empty database the run refuses with a clear error.
func TestTPCCProps(t *testing.T) {
	testenv.MariaDB(t, "walab_test_oltp_cli_tpcc")
	props := filepath.Join(t.TempDir(), "inst1.conf")
	require.NoError(t, os.WriteFile(props, []byte("db=mysql\ndriver=com.mysql.cj.jdbc.Driver\n"+
		"conn=jdbc:mysql://"+testenv.MariaDBAddr()+"/walab_test_oltp_cli_tpcc?useSSL=false\nuser=root\npassword=\n"+
		"warehouses=1\nterminals=2\nrunMins=1\nlimitTxnsPerMin=1000000000\n"), 0o644))
	var stdout, stderr strings.Builder
	code := Main([]string{"tpcc", "run", "--props", props, "--web.disable"}, &stdout, &stderr)
	require.Equal(t, 2, code, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
	require.Contains(t, stderr.String(), "target inst1")
	require.Contains(t, stderr.String(), "prepare")

	runCfg := func(args ...string) runner.Config {
		f, c, _, err := parse(append([]string{"tpcc", "run", "--props", props}, args...), io.Discard)
		require.NoError(t, err)
		tf, err := c.spec.TargetFile(props)
		require.NoError(t, err)
		tg := &target{name: "x", file: tf}
		require.NoError(t, c.build(f, tg))
		return tg.run
	}
	cfg := runCfg()
	require.Equal(t, 2, cfg.Threads)
	require.Equal(t, time.Minute, cfg.Duration)
	require.Zero(t, cfg.Rate, "limitTxnsPerMin=1e9 means no limit")
	cfg = runCfg("--terminals=3", "--limit-txns-per-min=600", "--time=5")
	require.Equal(t, 3, cfg.Threads)
	require.Equal(t, 5*time.Second, cfg.Duration)
	require.Equal(t, 10.0, cfg.Rate)
	cfg = runCfg("--threads=4")
	require.Equal(t, 4, cfg.Threads, "a --threads given wins over the props file's terminals")
}
