package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestSeed002TPCCLineWithTables: seed 002's sysbench-tpcc line, verbatim
// with loadgen in place of sysbench ./tpcc.lua and scaled down to
// --tables=2 --scale=1, prepares two independent TPC-C schemas (tables
// suffixed 1 and 2, as sysbench-tpcc names its copies), runs on both, and
// every consistency condition passes on each copy after the run; cleanup
// drops both.
func TestSeed002TPCCLineWithTables(t *testing.T) {
	const db = "walab_test_tpcc_tables"
	sqlDB, _ := testenv.MariaDB(t, db)
	host, port, _ := strings.Cut(testenv.MariaDBAddr(), ":")
	line := func(phase string) []string {
		return strings.Fields("tpcc.lua --mysql-host=" + host + " --mysql-user=root --mysql-port=" + port + " --mysql-db=" + db +
			" --time=4 --threads=4 --report-interval=1 --tables=2 --scale=1 --db-driver=mysql --web.disable " + phase)
	}
	tables := func() []string {
		rows, err := sqlDB.Query("SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_name LIKE 'bmsql_warehouse%' ORDER BY 1", db)
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			require.NoError(t, rows.Scan(&n))
			out = append(out, n)
		}
		return out
	}
	var out, errb bytes.Buffer
	for _, phase := range []string{"prepare", "run", "check"} {
		out.Reset()
		errb.Reset()
		require.Equal(t, 0, Main(line(phase), &out, &errb), "%s:\n%s\n%s", phase, out.String(), errb.String())
		if phase == "prepare" {
			require.Equal(t, []string{"bmsql_warehouse1", "bmsql_warehouse2"}, tables())
		}
	}
	for _, copy := range []string{"copy 1: ", "copy 2: "} {
		require.Contains(t, out.String(), copy+"3.3.2.1", "check output:\n%s", out.String())
	}
	require.NotContains(t, out.String(), "FAIL", "check output:\n%s", out.String())
	var n int
	for _, k := range []string{"1", "2"} {
		require.NoError(t, sqlDB.QueryRow("SELECT COUNT(*) FROM bmsql_oorder"+k+" WHERE o_id > 3000").Scan(&n))
		require.Positive(t, n, "the run placed New-Orders in copy %s", k)
	}
	require.Equal(t, 0, Main(line("cleanup"), &out, &errb), errb.String())
	require.Empty(t, tables())
}
