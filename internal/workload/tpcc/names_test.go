package tpcc

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestTableNames: copy k's statements name every table with the suffix k,
// as sysbench-tpcc names its --tables copies; one schema keeps
// BenchmarkSQL's names.
func TestTableNames(t *testing.T) {
	q := statements[stNOCustomer].sql
	require.Equal(t, q, tableNames{}.sql(q))
	got := copyNames(12).sql(q)
	require.Contains(t, got, "FROM bmsql_customer12 JOIN bmsql_warehouse12 ON")
	require.NotContains(t, copyNames(12).sql("SELECT cfg_value FROM bmsql_config"), "bmsql_config ")
	for _, c := range createTables {
		require.Regexp(t, `CREATE TABLE (IF NOT EXISTS )?bmsql_[a-z_]+3\b`, copyNames(3).sql(c))
	}
	_, err := NewCopies(Options{}, 0)
	require.ErrorContains(t, err, "tables=0")
	c, err := NewCopies(Options{Seed: 7}, 3)
	require.NoError(t, err)
	require.Len(t, c.copies, 3)
	require.NotEqual(t, c.copies[0].opts.Seed, c.copies[1].opts.Seed, "each copy its own data")
}

// TestCleanupDropsEveryCopy: cleanup drops every table walab's tpcc makes
// in the database, whatever --tables it is given: one schema's and each
// copy's (a --tables=2 prepare, then a --tables=1 cleanup left the copies:
// issue 54), and no other table. It looks the tables up once, so a
// --tables=1000 cleanup of 18 tables issues no 10,000 DROPs.
func TestCleanupDropsEveryCopy(t *testing.T) {
	db, _ := testenv.MariaDB(t, "walab_tpcc_cleanup_fiolows")
	ctx := context.Background()
	for _, n := range []tableNames{{}, copyNames(1), copyNames(2), copyNames(17)} {
		for _, c := range createTables {
			_, err := db.ExecContext(ctx, n.sql(c))
			require.NoError(t, err)
		}
	}
	for _, other := range []string{"bmsql_warehouse_old", "bmsql_warehouse01", "mine"} {
		_, err := db.ExecContext(ctx, "CREATE TABLE "+other+" (a int)")
		require.NoError(t, err)
	}
	tables := func() []string {
		rows, err := db.QueryContext(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME")
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		return out
	}
	require.Len(t, tables(), 4*len(Tables)+3)
	w, err := New(Options{})
	require.NoError(t, err)
	require.NoError(t, w.Cleanup(ctx, db), "--tables=1")
	require.Equal(t, []string{"bmsql_warehouse01", "bmsql_warehouse_old", "mine"}, tables(), "every copy dropped, nothing else")

	for _, c := range createTables {
		_, err := db.ExecContext(ctx, copyNames(3).sql(c))
		require.NoError(t, err)
	}
	cs, err := NewCopies(Options{}, MaxCopies)
	require.NoError(t, err)
	require.NoError(t, cs.Cleanup(ctx, db), "--tables=1000")
	require.Equal(t, []string{"bmsql_warehouse01", "bmsql_warehouse_old", "mine"}, tables())
}
