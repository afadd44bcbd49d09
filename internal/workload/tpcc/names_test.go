package tpcc

import (
	"testing"

	"github.com/stretchr/testify/require"
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
