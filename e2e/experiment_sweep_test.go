package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestExperimentSweepRepeat: seed 002's method as a plan — a sweep over 3
// thread counts, each repeated 3 times with the private mariadbd restarted
// before every repetition after the first — through walab experiment and
// the real loadgen; the report names the peak and every repetition.
func TestExperimentSweepRepeat(t *testing.T) {
	dir, bins := preamble(t, []string{"mariadb-admin"}, "loadgen", "walab")
	loadgen, walab := bins["loadgen"], bins["walab"]
	in := testenv.StartMariaDB(t)

	// The restart script stops the server by its pid file and starts the
	// same command line again, detached; the test stops the last one.
	bin, args := in.CommandLine()
	pids := filepath.Join(dir, "pids")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + a + "'"
	}
	writeFile(t, dir, "restart.sh", fmt.Sprintf(`set -e
pid=$(cat %[1]s)
kill "$pid"
# mariadbd removes its pid file when it has shut down (the first server is
# the test's child: it stays a zombie until the test reaps it, so kill -0
# would wait forever).
while [ -e %[1]s ]; do sleep 0.1; done
setsid %[2]s %[3]s >/dev/null 2>&1 < /dev/null &
for i in $(seq 300); do
  if mariadb-admin -h127.0.0.1 -P%[4]d -uroot ping >/dev/null 2>&1 && [ -s %[1]s ]; then cat %[1]s >> %[5]s; exit 0; fi
  sleep 0.1
done
echo "mariadbd did not come back" >&2; exit 1
`, in.PIDFile(), bin, strings.Join(quoted, " "), in.Port, pids))
	t.Cleanup(func() {
		b, err := os.ReadFile(in.PIDFile())
		if err != nil {
			return
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			for i := 0; i < 200 && syscall.Kill(pid, 0) == nil; i++ {
				time.Sleep(100 * time.Millisecond)
			}
		}
	})

	plan := fmt.Sprintf(`name: sweep
loadgen: %[1]s
targets:
  - {name: db, dsn: "root@tcp(127.0.0.1:%[2]d)/i19_sweep"}
prepare:
  - command: mariadb -h127.0.0.1 -P%[2]d -uroot -e 'CREATE DATABASE IF NOT EXISTS i19_sweep'
  - {loadgen: oltp_read_write prepare --tables 1 --table-size 2000, targets: [db], destructive: true}
checks:
  - {check: target_loaded, targets: [db], tables: [sbtest1]}
runs:
  - name: peak
    workload: oltp_read_write
    args: --tables 1 --table-size 2000 --web.disable
    duration: 2s
    targets: [db]
    sweep: {threads: [1, 2, 4]}
    repeat: 3
    restart: sh %[3]s
`, loadgen, in.Port, filepath.Join(dir, "restart.sh"))
	writeFile(t, dir, "plan.yml", plan)
	out := filepath.Join(dir, "out")
	runExperiment(t, 3*time.Minute, walab, []string{filepath.Join(dir, "plan.yml"), "--out", out})

	b, err := os.ReadFile(pids)
	require.NoError(t, err)
	restarted := strings.Fields(string(b))
	require.Len(t, restarted, 6, "a restart before repetitions 2 and 3 of each thread count")
	distinct := map[string]bool{}
	for _, p := range restarted {
		distinct[p] = true
	}
	require.Len(t, distinct, 6, "every restart is a new server process")

	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	r := string(report)
	require.Regexp(t, `Sweep peak: peak throughput at \*\*[124] threads\*\*, [0-9.]+ TPS \(mean of 3\)[;.]`, r)
	for _, th := range []string{"1", "2", "4"} {
		require.Regexp(t, `\| peak \| peak \| `+th+` \| 3 \| [0-9.]+ \[[-0-9.]+, [0-9.]+\] [0-9.]+–[0-9.]+ \|`, r)
		for rep := 1; rep <= 3; rep++ {
			require.Contains(t, r, fmt.Sprintf("| sweep-peak-t%s-r%d | peak/t%s/r%d/run | 1 |", th, rep, th, rep))
		}
	}
	t.Logf("%s", r[:strings.Index(r, "## Pre-run checks")])
}
