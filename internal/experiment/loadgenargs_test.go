package experiment

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlanLoadgenArgs: a misspelt workload, phase or loadgen flag is a
// plan error at its line, before anything (a destructive reset) runs;
// loadgen's own spellings (sysbench underscores, --no-X, dotted web flags)
// pass.
func TestPlanLoadgenArgs(t *testing.T) {
	yml := `name: lg
targets: [{name: db, dsn: "root@tcp(127.0.0.1:3306)/x"}]
reset:
  - {loadgen: "tpcc prepar --warehouses 1", targets: [db], destructive: true}
  - {loadgen: "oltp_read_write prepare --table_size 10 --tables=1 --no-mysql-blocking-io", targets: [db], destructive: true}
  - {loadgen: "--threads 2 tpcc_x cleanup", targets: [db], destructive: true}
  - {loadgen: "--threads 2 tpcc cleanup", targets: [db], destructive: true}
runs:
  - {name: a, workload: tpcc_typo, duration: 10s, targets: [db]}
  - {name: b, workload: tpcc, args: "--terminal 4 --web.listen-address=127.0.0.1:1", duration: 10s, targets: [db]}
  - {name: c, workload: oltp_read_write, args: "--table-size 10 --mysql_db x --web.disable --rand-type uniform", duration: 10s, targets: [db]}
`
	_, err := Parse([]byte(yml))
	require.Error(t, err)
	got := err.Error()
	for _, want := range []string{
		`line 4: reset[0]: loadgen "tpcc prepar --warehouses 1" names no phase of tpcc (prepare, run, check, cleanup)`,
		`line 6: reset[2]: loadgen "--threads 2 tpcc_x cleanup" names no workload of loadgen's (`,
		`line 9: runs[0] (a): workload "tpcc_typo" is not one of loadgen's (`,
		`line 10: runs[1] (b): loadgen flag --terminal is not one of loadgen tpcc's`,
	} {
		require.Contains(t, got, want)
	}
	require.Len(t, strings.Split(got, "\n"), 4, got)

	// The shipped plan passes.
	b, err := os.ReadFile("../../deploy/experiments/seed000-sim.yml")
	require.NoError(t, err)
	_, err = ParseEnv(b, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
}
