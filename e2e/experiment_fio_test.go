package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/testenv"
)

// TestExperimentFioSeed002RandWrite: seed 002's randwrite line, verbatim
// but for its file (a loop device the test creates), size and runtime (plan
// variables), plus --time_based so that the 1 MiB per job lasts the runtime
// (compare needs whole rounds) and --rate_iops=50 per job (3,200 IOPS in
// all: unbounded, 64 jobs at queue depth 32 on a loop device took both
// cores of a CI machine and starved the exporter's simulated drive, which
// then read up=0 for most of a run and compare had no counters), runs
// twice through walab experiment under the real fio 3.33:
// the report shows fio's IOPS and latency beside the loop device's iostat
// view over each run; walab experiment marks each run's span
// (walab_experiment_run_info, scraped by a real Prometheus), and walab
// compare, inside the experiment and on its own, finds both runs by their
// ids. The WA figures are the simulated drive's (this machine has no NVMe
// drive under the loop device): the test shows the spans, not a WA result.
func TestExperimentFioSeed002RandWrite(t *testing.T) {
	dir, bins := preamble(t, []string{"prometheus", "fio"}, "exporter", "walab")
	promBin := bins["prometheus"]
	dev := loopDevice(t, filepath.Join(dir, "loop.img"), 64<<20)
	// The shipped plan's dry run: every fio command exactly, with its JSON
	// output. The test gives the size (the seed's 64G, the plan's default,
	// is refused where less is free: TestSeed002PlanDryRun holds it).
	cmd := exec.Command(bins["walab"], "experiment", "run", "../deploy/experiments/seed002-fio.yml", "--dry-run")
	cmd.Env = append(os.Environ(), "WALAB_FIO_SIZE=1M")
	dry, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", dry)
	require.Equal(t, 21, strings.Count(string(dry), " --output-format=json --output=RUN_DIR/fio.json "), "%s", dry)
	require.Contains(t, string(dry), "fio --filename=./testfile -ioengine=libaio -direct=1 -iodepth=32 -rw=randwrite -bs=4k -size=1M -numjobs=64 -runtime=60 -group_reporting -name=test-rand-write --numjobs=64 --output-format=json --output=RUN_DIR/fio.json")

	writeFile(t, dir, "exporter.yml", simExporterConfig+fmt.Sprintf("blockdev:\n  devices: [%s]\n", filepath.Base(dev)))
	exporterAddr := addr(testenv.FreePort(t))
	exp := start(t, dir, "exporter", bins["exporter"], "--web.listen-address="+exporterAddr,
		"--config.file=exporter.yml", "--path.sysfs=/sys", "--path.devfs="+t.TempDir(),
		"--nvme.cache-max-age=500ms", "--collector.nvme", "--no-collector.filesystem", "--no-collector.innodb", "--no-collector.irq")
	waitHTTP(t, exp, "http://"+exporterAddr+"/metrics", 60*time.Second)
	walabAddr := addr(testenv.FreePort(t))
	writeE2ERules(t, dir)
	promAddr, papi := startPrometheus(t, dir, promBin, [2]string{"walab-exporter", exporterAddr}, [2]string{"walab-experiment", walabAddr})
	eventually(t, 60*time.Second, "the simulated drive's counters in Prometheus", func() string {
		if v, err := instant(papi, "walab_nvme_host_written_bytes_total"); err != nil || len(v) == 0 {
			return fmt.Sprintf("%d series, %v", len(v), err)
		}
		return ""
	})

	line := "fio --filename=${WALAB_FIO_FILE} -ioengine=libaio -direct=1 -iodepth=32 -rw=randwrite -bs=4k -size=${WALAB_FIO_SIZE} -numjobs=64 -runtime=${WALAB_FIO_RUNTIME} -group_reporting -name=test-rand-write"
	writeFile(t, dir, "plan.yml", fmt.Sprintf(`name: fio-e2e
exporter: http://%[1]s
prometheus: http://%[2]s
device: %[3]s
round: 4s
runs:
  - {name: base, destructive: true, fio: "%[4]s --time_based --rate_iops=50"}
  - {name: cand, destructive: true, fio: "%[4]s --time_based --rate_iops=50"}
compare: {baseline: base, candidate: cand}
`, exporterAddr, promAddr, simDevice, line))
	out := filepath.Join(dir, "out")
	runExperiment(t, 3*time.Minute, bins["walab"], []string{filepath.Join(dir, "plan.yml"), "--out", out, "--web.listen-address", walabAddr},
		"WALAB_FIO_FILE="+dev, "WALAB_FIO_SIZE=1M", "WALAB_FIO_RUNTIME=16")

	checkFioRecords(t, out, dev)
	// walab compare on its own reads the same spans from Prometheus.
	cmd = exec.Command(bins["walab"], "compare", "--prometheus.url=http://"+promAddr, "--baseline=fio-e2e-base-r1",
		"--candidate=fio-e2e-cand-r1", "--device="+simDevice, "--round=4s", "--lookback=10m", "--placement-check=off")
	var cout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &cout, &cout
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err)
	}
	require.Contains(t, []int{0, 3}, cmd.ProcessState.ExitCode(), "a verdict (VALID or NOT VALID), not an error:\n%s", cout.String())
	require.Contains(t, cout.String(), "baseline run fio-e2e-base-r1 (scenario base): ")
	require.Contains(t, cout.String(), "candidate run fio-e2e-cand-r1 (scenario cand): ")
}

// checkFioRecords: the report shows fio's figures beside the loop device's
// iostat view for each run, the records agree with the device, and the
// experiment's compare phase found both runs by their spans.
func checkFioRecords(t *testing.T, out, dev string) {
	t.Helper()
	report, err := os.ReadFile(filepath.Join(out, experiment.ReportFile))
	require.NoError(t, err)
	r := string(report)
	t.Log(r[:strings.Index(r, "## Pre-run checks")])
	// fio's figures beside the loop device's iostat view, for each run.
	disk := regexp.QuoteMeta(filepath.Base(dev))
	for _, id := range []string{"fio-e2e-base-r1", "fio-e2e-cand-r1"} {
		require.Regexp(t, `\| `+id+` \| \(line\) \| 0 \| [1-9][0-9]* \| 0\.00 \| [0-9.]+ \| — \| [0-9.]+ / [0-9.]+ / [0-9.]+ \| 0 \| — \| `+disk+` \| [0-9]+ \| [1-9][0-9]* \| [0-9.]+ \| [0-9.]+ \| [—0-9.]+ \| [0-9.]+ \| [0-9.]+ \|`, r)
	}
	var st state.State
	b, err := os.ReadFile(filepath.Join(out, state.StateFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &st))
	require.Len(t, st.Runs, 2)
	for _, run := range st.Runs {
		require.NotNil(t, run.Fio)
		require.Len(t, run.Fio.Block, 1)
		// fio's writes and the device's agree within what else wrote it
		// (nothing) and the span's edges.
		require.InEpsilon(t, run.Fio.Total.WriteIOPS, run.Fio.Block[0].WritesPerSec, 0.35, "fio IOPS vs the device's w/s")
	}
	// walab compare inside the experiment found both runs by their spans.
	require.NotNil(t, st.Compare)
	require.Empty(t, st.Compare.Error)
	for i, run := range st.Runs {
		role := []string{"baseline", "candidate"}[i]
		m := regexp.MustCompile(role + ` run ` + run.RunID + ` \(scenario ` + run.Scenario + `\): (\S+) \.\. ([^\s,]+)`).FindStringSubmatch(st.Compare.Text)
		require.NotNil(t, m, st.Compare.Text)
		spanMatches(t, m[1], m[2], run.Start, run.End)
	}
	require.Contains(t, st.Compare.Text, "fio over the whole runs (run records, fio-e2e-base-r1 vs fio-e2e-cand-r1)")
	require.Regexp(t, `write IOPS\s+[0-9.]+\s+[0-9.]+\s+[-+][0-9.]+%`, st.Compare.Text)

}

// spanMatches: the span compare found is the run's, to within the scrape
// interval (1 s) and walab's fingerprint around the command.
func spanMatches(t *testing.T, from, to string, start, end time.Time) {
	t.Helper()
	a, err := time.Parse(time.RFC3339, from)
	require.NoError(t, err)
	z, err := time.Parse(time.RFC3339, to)
	require.NoError(t, err)
	require.WithinDuration(t, start, a, 3*time.Second, "span start")
	require.WithinDuration(t, end, z, 3*time.Second, "span end")
}
