package tpcc

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// TestPrepareProgressTotalIsExact: the load's progress total is the number
// of rows it loads, known from the first event on: it never changes during
// the load and equals the rows in the tables at the end (the order-line
// counts are drawn before the load). Unseeded, so each district draws its
// own counts at random.
func TestPrepareProgressTotalIsExact(t *testing.T) {
	t.Parallel()
	db, _ := testenv.MariaDB(t, "walab_test_tpcc_progress")
	w := newTestWorkload(t, Options{Warehouses: 2, scale: smallScale})
	var mu sync.Mutex
	totals := map[int64]bool{}
	var last workload.ProgressEvent
	require.NoError(t, w.Prepare(context.Background(), db, workload.PrepareOptions{Workers: 2, Progress: func(e workload.ProgressEvent) {
		mu.Lock()
		defer mu.Unlock()
		totals[e.TotalRows] = true
		last = e
	}}))
	require.Len(t, totals, 1, "the total changed during the load: %v", totals)
	var rows int64
	for _, table := range Tables {
		if table == "bmsql_config" {
			continue // walab's own bookkeeping, not loaded rows
		}
		var n int64
		require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM "+table).Scan(&n))
		rows += n
	}
	require.Equal(t, rows, last.TotalRows)
	require.Equal(t, rows, last.Rows)
}
