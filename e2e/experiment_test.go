package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestExperimentSeed000Sim runs the shipped seed 000 plan unchanged (only
// its ${...} environment values differ) on real parts in simulated time:
// the exporter on the simulated drive, the machine's MariaDB as instance 1
// and a private mariadbd as instance 2, a real Prometheus, loadgen TPC-C;
// the reset restores both datasets from a mariadb-dump, the between steps
// switch the simulator's placement. The report holds both runs, their
// fingerprints, the checks and the comparison.
func TestExperimentSeed000Sim(t *testing.T) {
	dir, bins := preamble(t, []string{"prometheus", "mariadb-dump", "curl"}, "exporter", "loadgen", "walab")
	promBin := bins["prometheus"]
	_, _ = testenv.MariaDB(t, "i19_seed000_1")
	second := testenv.StartMariaDB(t)

	// The checks read the data directories' filesystems from the exporter:
	// it describes every mount (the two MariaDBs' datadirs are on this host).
	writeFile(t, dir, "exporter.yml", simExporterConfig+"host:\n  data_dirs: [/]\n")
	exporterAddr := addr(testenv.FreePort(t))
	exp := start(t, dir, "exporter", bins["exporter"], "--web.listen-address="+exporterAddr,
		"--config.file=exporter.yml", "--path.sysfs="+t.TempDir(), "--path.devfs="+t.TempDir(),
		"--nvme.cache-max-age=500ms", "--web.enable-mutations", "--collector.nvme", "--no-collector.filesystem",
		"--no-collector.innodb", "--no-collector.irq", "--collector.placement_trace") // the verdict reads placement per command from the simulator
	waitHTTP(t, exp, "http://"+exporterAddr+"/metrics", 60*time.Second)

	loadgenAddr := addr(testenv.FreePort(t))
	writeE2ERules(t, dir)
	promAddr, _ := startPrometheus(t, dir, promBin, [2]string{"walab-exporter", exporterAddr}, [2]string{"walab-loadgen", loadgenAddr})

	out := filepath.Join(dir, "experiment")
	runExperiment(t, 8*time.Minute, bins["walab"], []string{"../deploy/experiments/seed000-sim.yml", "--out", out, "--progress", "10s"},
		"WALAB_EXPORTER=http://"+exporterAddr, "WALAB_PROMETHEUS=http://"+promAddr,
		"WALAB_DEVICE="+simDevice, "WALAB_ROUND=5s", "WALAB_LOADGEN="+bins["loadgen"],
		"WALAB_MYSQL_1_PORT=3306", "WALAB_DB_1=i19_seed000_1",
		"WALAB_MYSQL_2_PORT="+strconv.Itoa(second.Port), "WALAB_DB_2=i19_seed000_2",
		"WALAB_BACKUP="+filepath.Join(dir, "backup"), "WALAB_RUN=75s", "WALAB_LOADGEN_LISTEN="+loadgenAddr)

	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	r := string(report)
	if keep := os.Getenv("WALAB_E2E_KEEP_REPORT"); keep != "" {
		require.NoError(t, os.WriteFile(keep, report, 0o644))
	}
	for _, want := range []string{
		"| seed000-sim-baseline-r1 | baseline/r1/run | 1 |",
		"| seed000-sim-streams-r1 | streams/r1/run | 1 |",
		"### seed000-sim-baseline-r1", "### seed000-sim-streams-r1",
		"| drive.model | ", "| mysql.mysql-2.variables.innodb_flush_log_at_trx_commit | ",
		"| baseline | target_loaded | PASS | mysql-1: bmsql_config warehouses=1; mysql-2: bmsql_config warehouses=1 |",
		"| baseline | placement | PASS | simulated placement: off (scenario baseline expects off) |",
		"| streams | placement | PASS | simulated placement: on (scenario streams expects on) |",
		"| streams | prometheus | PASS |",
		"`drive.sim_placement: \"false\" → \"true\"`",
		"## Comparison: baseline (baseline) vs streams (candidate)",
	} {
		require.Contains(t, r, want)
	}
	// The treatment shows in the drive counters: less NAND per host byte.
	require.Regexp(t, `WA over whole runs \(drive counters at start and end\): [0-9.]+ → [0-9.]+, \*\*-[0-9.]+%\*\*`, r)
	require.True(t, strings.Contains(r, "tpmC"), "TPC-C figures reported")
	// walab compare's verdict on 5 s rounds (a simulated hour): both runs
	// steady, comparable, placement inferred on/off, and a WA change whose
	// 95% interval excludes 0.
	require.Regexp(t, "```\nVALID  WA -[0-9.]+% \\[-[0-9.]+, -[0-9.]+\\] \\(steady from r[0-9]+ / r[0-9]+\\)", r)
	require.Contains(t, r, "pass    placement (observed)")
	// One throughput change on the page: the headline's is the verdict's,
	// over the compared rounds, which the report lists one by one.
	head := regexp.MustCompile(`Throughput over the compared rounds [^\n]*: [0-9.]+ → [0-9.]+ TPS, \*\*([-+][0-9.]+%)\*\*`).FindStringSubmatch(r)
	require.NotNil(t, head, "headline throughput over the compared rounds")
	require.Regexp(t, "```\nVALID [^\n]*  throughput "+regexp.QuoteMeta(head[1])+" ", r)
	require.Contains(t, r, "compared rounds, one line each")
	// One repetition a side (cycles: 1): the report says that no interval
	// between runs exists rather than printing one.
	require.Contains(t, r, "- No interval between runs (1 and 1 repetitions with a throughput: fewer than 2 a side)")
}

// runExperiment runs `walab experiment run args...` with env added and
// fails the test with the runner's output when it does not succeed.
func runExperiment(t *testing.T, within time.Duration, walab string, args []string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, walab, append([]string{"experiment", "run"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	started := time.Now()
	err := cmd.Run()
	t.Logf("walab experiment took %s", time.Since(started).Round(time.Second))
	require.NoError(t, err, out.String())
}
