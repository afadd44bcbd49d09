package tpcc

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// TestFullWarehouseLoad loads one warehouse at the spec's full scale and
// checks the cardinalities of clause 4.3 and all consistency conditions.
func TestFullWarehouseLoad(t *testing.T) {
	t.Parallel() // each test has its own database; they mostly wait on the server
	if testing.Short() {
		t.Skip("full 1-warehouse load in -short mode")
	}
	db, _ := testenv.MariaDB(t, "walab_test_tpcc_full")
	w := newTestWorkload(t, Options{Warehouses: 1, Seed: 1})
	var last workload.ProgressEvent
	start := time.Now()
	require.NoError(t, w.Prepare(context.Background(), db, workload.PrepareOptions{Workers: 2,
		Progress: func(e workload.ProgressEvent) { last = e }}))
	t.Logf("full 1-warehouse load with 2 workers: %v", time.Since(start))
	require.Equal(t, last.Rows, last.TotalRows)

	for _, c := range []struct {
		table string
		want  int64
	}{
		{"bmsql_warehouse", 1}, {"bmsql_district", 10}, {"bmsql_customer", 30000}, {"bmsql_history", 30000},
		{"bmsql_oorder", 30000}, {"bmsql_new_order", 9000}, {"bmsql_item", 100000}, {"bmsql_stock", 100000},
	} {
		var n int64
		require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM "+c.table).Scan(&n))
		require.Equal(t, c.want, n, c.table)
	}
	requireLoadedData(t, db, 1, fullScale)
	var lines int64
	require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM bmsql_order_line").Scan(&lines))
	require.InDelta(t, 300000, lines, 3000, "order lines average 10 per order")
	requireChecksPass(t, db, w)
}
