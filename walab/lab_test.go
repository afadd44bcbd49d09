package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestLab runs `walab lab` (make run's command) as the CLI parses it, with
// free ports and the test's own databases: the verdict with its interval,
// the HTML report, the stack still up while it holds; then Ctrl-C (the
// context) leaves no process behind. A second lab is cancelled while the
// plan's loadgen step runs: nothing is left either.
func TestLab(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus, the exporter and loadgen on MariaDB: skipped with -short")
	}
	prom := testenv.RequireBinary(t, "prometheus")
	for _, b := range []string{"mariadb", "mariadb-dump", "curl"} {
		testenv.RequireBinary(t, b) // the plan's prepare, reset and between steps
	}
	dir := t.TempDir()
	bins := map[string]string{}
	for _, b := range []string{"exporter", "loadgen"} {
		bins[b] = filepath.Join(dir, "bin", b)
		out, err := exec.Command("go", "build", "-o", bins[b], "../"+b).CombinedOutput()
		require.NoError(t, err, "go build ./%s: %s", b, out)
	}
	args := func(name string) []string {
		_, _ = testenv.MariaDB(t, "newcomer_"+name+"_1") // fresh, and dropped when the test ends
		_, _ = testenv.MariaDB(t, "newcomer_"+name+"_2")
		port := func() string { return "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)) }
		return []string{"lab", "--out=" + filepath.Join(dir, name), "--plan=../deploy/experiments/seed000-sim.yml",
			"--exporter.bin=" + bins["exporter"], "--loadgen.bin=" + bins["loadgen"], "--prometheus.bin=" + prom,
			"--exporter.listen=" + port(), "--prometheus.listen=" + port(), "--loadgen.listen=" + port(),
			"--mysql.db-1=newcomer_" + name + "_1", "--mysql.db-2=newcomer_" + name + "_2",
			"--run=90s", "--round=10s", "--progress=10s"}
	}

	t.Run("verdict", func(t *testing.T) {
		lab := startLab(t, args("verdict"))
		out := lab.waitFor(t, "up for exploring", 8*time.Minute)
		require.Regexp(t, `(?m)^VALID  WA -[0-9.]+% \[-[0-9.]+, -[0-9.]+\] `, out)
		html := regexp.MustCompile(`(?m)^HTML report: +(\S+)$`).FindStringSubmatch(out)
		require.NotNil(t, html, out)
		report, err := os.ReadFile(html[1])
		require.NoError(t, err)
		require.Contains(t, string(report), "<html")
		promURL := regexp.MustCompile(`(?m)^Prometheus: +(\S+)$`).FindStringSubmatch(out)
		require.NotNil(t, promURL, out)
		resp, err := http.Get(promURL[1] + "/-/ready")
		require.NoError(t, err, "Prometheus is up while the lab holds")
		resp.Body.Close()
		require.Equal(t, 0, lab.stop(t), lab.out.String())
		requireNoProcess(t, dir)
	})
	t.Run("cancelled mid-run", func(t *testing.T) {
		lab := startLab(t, args("cancel"))
		lab.waitFor(t, "[prepare] prepare/2", 5*time.Minute)
		waitProcess(t, dir, "tpcc prepare", time.Minute) // loadgen is loading, a step of the plan
		require.Equal(t, 130, lab.stop(t), lab.out.String())
		requireNoProcess(t, dir)
	})
}

type runningLab struct {
	cancel context.CancelFunc
	out    *testenv.Buffer
	code   chan int
}

// startLab parses args as walab's CLI does and runs the lab command.
func startLab(t *testing.T, args []string) *runningLab {
	app := kingpin.New("walab", "")
	c := defineLab(app)
	cmd, err := app.Parse(args)
	require.NoError(t, err)
	require.True(t, c.handles(cmd))
	ctx, cancel := context.WithCancel(context.Background())
	l := &runningLab{cancel: cancel, out: &testenv.Buffer{}, code: make(chan int, 1)}
	go func() { l.code <- c.execute(ctx, l.out, l.out) }()
	t.Cleanup(cancel)
	return l
}

// waitFor waits until the lab printed s and returns its output so far.
func (l *runningLab) waitFor(t *testing.T, s string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if out := l.out.String(); strings.Contains(out, s) {
			return out
		}
		select {
		case code := <-l.code:
			t.Fatalf("walab lab exited %d before printing %q:\n%s", code, s, l.out.String())
		case <-time.After(time.Second):
		}
	}
	t.Fatalf("walab lab did not print %q within %s:\n%s", s, within, l.out.String())
	return ""
}

// stop is Ctrl-C: cancel, then the lab's exit code.
func (l *runningLab) stop(t *testing.T) int {
	t.Helper()
	l.cancel()
	select {
	case code := <-l.code:
		return code
	case <-time.After(time.Minute):
		t.Fatalf("walab lab did not return within a minute of its cancel:\n%s", l.out.String())
	}
	return -1
}

// waitProcess waits until a process naming dir and what on its command
// line runs.
func waitProcess(t *testing.T, dir, what string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, p := range processesNaming(t, dir) {
			if strings.Contains(p, what) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no process %q under %s within %s", what, dir, within)
}

// requireNoProcess: no process on the machine names dir on its command
// line (the lab's binaries and configs all live under it).
func requireNoProcess(t *testing.T, dir string) {
	t.Helper()
	require.Empty(t, processesNaming(t, dir), "processes left behind")
}

// processesNaming lists the processes with dir on their command line, as
// "pid: command line".
func processesNaming(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var left []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(dir)) {
			left = append(left, fmt.Sprintf("%s: %s", e.Name(), bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		}
	}
	return left
}
