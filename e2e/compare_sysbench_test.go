package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/apiguard"
	"github.com/walab/walab/internal/testenv"
)

// TestCompareSysbenchTimeRanges compares two runs that walab's loadgen did
// not drive: Debian's sysbench 1.0.20 runs oltp_write_only against a
// private mariadbd, first with the simulated drive's placement off, then
// on; `walab compare` gets the runs as time ranges, in simulated time
// (5 s rounds), from a real Prometheus scraping the exporter (simulated
// drive, placement tracer, innodb collector on that server). The verdict
// is VALID with a WA reduction whose interval excludes 0 and the
// throughput from the server's COMMITs; the baseline's range given as the
// candidate is NOT VALID because no write carried a placement id.
func TestCompareSysbenchTimeRanges(t *testing.T) {
	dir, bins := preamble(t, []string{"prometheus", "sysbench"}, "exporter", "walab")
	promBin, sysbench := bins["prometheus"], bins["sysbench"]
	db := testenv.StartMariaDB(t) // nothing else commits on it: its COMMITs are sysbench's
	_, _ = db.Open("sbtest")
	writeFile(t, dir, "exporter.yml", simExporterConfig+fmt.Sprintf(`innodb:
  targets:
    - name: sysbench
      dsn: "root@tcp(%s)/"
`, db.Addr))
	exporterAddr := addr(testenv.FreePort(t))
	exp := start(t, dir, "exporter", bins["exporter"], "--web.listen-address="+exporterAddr,
		"--config.file=exporter.yml", "--path.sysfs="+t.TempDir(), "--path.devfs="+t.TempDir(),
		"--nvme.cache-max-age=500ms", "--web.enable-mutations", "--collector.nvme", "--no-collector.filesystem",
		"--collector.innodb", "--no-collector.irq", "--collector.placement_trace")
	base := "http://" + exporterAddr
	waitHTTP(t, exp, base+"/metrics", 60*time.Second)
	writeE2ERules(t, dir)
	promAddr, papi := startPrometheus(t, dir, promBin, [2]string{"walab-exporter", exporterAddr})

	host, port, _ := strings.Cut(db.Addr, ":")
	sb := func(ctx context.Context, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, sysbench, append([]string{"oltp_write_only", "--db-driver=mysql",
			"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-db=sbtest",
			"--tables=2", "--table-size=2000"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "sysbench %s: %s", strings.Join(args, " "), out)
		return string(out)
	}
	placement := func(on string) {
		req, err := apiguard.NewPost(base + "/api/v1/sim/placement?streams=" + on)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Minute)
	defer cancel()
	sb(ctx, "--threads=2", "prepare")
	// Prometheus scrapes its first targets some seconds after it is ready:
	// a run started before that has rounds without data (and compare says
	// so); start once the drive's counters and the server's are there.
	eventually(t, 60*time.Second, "the exporter's counters in Prometheus", func() string {
		for _, q := range []string{"walab_nvme_host_written_bytes_total", `walab_mysql_commands_total{command="commit"}`} {
			if v, err := instant(papi, q); err != nil || len(v) == 0 {
				return fmt.Sprintf("%s: %d series, %v", q, len(v), err)
			}
		}
		return ""
	})

	// Each run: 90 s of sysbench at a fixed rate, the drive's placement
	// switched just before (the simulated drive's WA settles within a few
	// rounds; the steady-state detector finds where). Rounds of 10 s hold
	// about ten scrapes each, so a few seconds in which a loaded CI machine
	// misses scrapes do not leave a round empty (compare would rightly call
	// the comparison NOT VALID then).
	var ranges [2]string
	for i, on := range []string{"off", "on"} {
		placement(on)
		start := time.Now().UTC().Truncate(time.Second)
		out := sb(ctx, "--threads=2", "--time=90", "--rate=100", "--report-interval=0", "run")
		end := time.Now().UTC().Truncate(time.Second)
		ranges[i] = start.Format(time.RFC3339) + "," + end.Format(time.RFC3339)
		m := regexp.MustCompile(`transactions:\s+(\d+)`).FindStringSubmatch(out)
		require.NotNil(t, m, out)
		t.Logf("placement %s: %s, sysbench transactions %s", on, ranges[i], m[1])
	}
	time.Sleep(3 * time.Second) // the last round's scrapes are in Prometheus

	compareRun := func(b, c string) (string, int) {
		cmd := exec.CommandContext(ctx, bins["walab"], "compare", "--prometheus.url=http://"+promAddr,
			"--baseline-range="+b, "--candidate-range="+c, "--device="+simDevice, "--round=10s", "--last-hours=8")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			require.NoError(t, err)
		}
		return out.String(), cmd.ProcessState.ExitCode()
	}
	out, code := compareRun(ranges[0], ranges[1])
	t.Log(out)
	require.Equal(t, 0, code, out)
	// One run each: throughput gets no interval; the reason printed is the
	// first that applies (a throughput still drifting, or one run each).
	require.Regexp(t, `^VALID  WA -[0-9.]+% \[-[0-9.]+, -[0-9.]+\] \(steady from r[0-9]+ / r[0-9]+\)  throughput [-+][0-9.]+% \(no interval: `, out)
	for _, want := range []string{"pass    placement (observed)", "pass    same drive", "pass    same MySQL config", "pass    host write rate"} {
		require.Contains(t, out, want)
	}
	// sysbench's 100 transactions a second, counted by the server: each
	// run's figure is within a fifth of it (sysbench's --rate is a
	// Poisson arrival rate; a loaded machine can lag).
	m := regexp.MustCompile(`(?m)^transactions/s \(server COMMITs\)\s+([0-9.]+)\s+([0-9.]+)\s`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	for _, s := range m[1:] {
		tps, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err)
		require.InDelta(t, 100, tps, 20, "server-side transactions/s")
	}
	require.NotContains(t, out, "New-Orders", "no TPC-C figure for sysbench")

	// The baseline's range as the candidate: no write carried a placement
	// id, so it measured the baseline.
	out, code = compareRun(ranges[0], ranges[0])
	require.Equal(t, 3, code, out)
	require.Regexp(t, `^NOT VALID: placement \(observed\): only 0\.0% of the candidate's write bytes carried a placement id`, out)
}
