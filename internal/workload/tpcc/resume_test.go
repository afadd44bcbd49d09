package tpcc

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// TestPrepareResumes stops a load half way (its context is cancelled after
// some rows) and checks that a second prepare finishes it into a consistent
// data set, and that mismatching loads are refused with a clear message.
func TestPrepareResumes(t *testing.T) {
	t.Parallel() // each test has its own database; they mostly wait on the server
	db, _ := testenv.MariaDB(t, "walab_test_tpcc_resume")
	ctx := context.Background()
	w := newTestWorkload(t, Options{Warehouses: 2, Seed: 3, scale: smallScale})

	cctx, cancel := context.WithCancel(ctx)
	err := w.Prepare(cctx, db, workload.PrepareOptions{Workers: 2, Progress: func(e workload.ProgressEvent) {
		if e.Rows > e.TotalRows/3 {
			cancel()
		}
	}})
	require.Error(t, err)
	require.True(t, errors.Is(err, context.Canceled), "%v", err)

	cfg, err := readConfig(ctx, db)
	require.NoError(t, err)
	require.Less(t, cfg.loaded, 2, "the interrupted load must not be recorded as complete")

	// The warehouses with rows but not complete, found by brute force over
	// every table, are the ones partialWarehouses finds from its two small
	// tables (each load unit is one transaction that writes one of them
	// first).
	var brute []int
	for wh := 1; wh <= 2; wh++ {
		if cfg.done[wh] {
			continue
		}
		for _, tc := range warehouseColumn {
			var n int
			require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM "+tc.table+" WHERE "+tc.column+" = ?", wh).Scan(&n))
			if n > 0 {
				brute = append(brute, wh)
				break
			}
		}
	}
	require.NotEmpty(t, brute, "the interrupted load left a partial warehouse")
	partial, err := partialWarehouses(ctx, db, cfg.done)
	require.NoError(t, err)
	require.Equal(t, brute, partial)

	// A run refuses the incomplete load.
	_, err = newTestWorkload(t, Options{}).ensureStateDB(ctx, db)
	require.ErrorContains(t, err, "incomplete")

	// Another size is refused, naming both sizes.
	other := newTestWorkload(t, Options{Warehouses: 3, scale: smallScale})
	err = other.Prepare(ctx, db, workload.PrepareOptions{Workers: 2})
	require.ErrorContains(t, err, "2-warehouse load")
	require.ErrorContains(t, err, "warehouses=3")

	var events int
	require.NoError(t, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2, Progress: func(workload.ProgressEvent) { events++ }}))
	require.NotZero(t, events)
	requireChecksPass(t, db, w)
	var n int
	require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM bmsql_customer").Scan(&n))
	require.Equal(t, 2*10*smallScale.Customers, n, "no duplicated or missing customers after the resume")

	// Preparing a complete load again is a no-op.
	require.NoError(t, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2}))

	// A load made by another tool (no walab rows in bmsql_config) is refused.
	_, err = db.Exec("DELETE FROM bmsql_config WHERE cfg_name LIKE 'walab%'")
	require.NoError(t, err)
	err = w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2})
	require.ErrorContains(t, err, "another tool")

	// ... but runs: BenchmarkSQL's rows are all a run needs.
	st, err := newTestWorkload(t, Options{Warehouses: 1}).ensureStateDB(ctx, db)
	require.NoError(t, err)
	require.Equal(t, 1, st.warehouses)
	require.True(t, ValidCLastDelta(st.load.CLast, st.run.CLast))
	_, err = newTestWorkload(t, Options{Warehouses: 5}).ensureStateDB(ctx, db)
	require.ErrorContains(t, err, "more than the 2 loaded")

	// Data without any bmsql_config row is refused too.
	_, err = db.Exec("DELETE FROM bmsql_config")
	require.NoError(t, err)
	err = w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2})
	require.ErrorContains(t, err, "hold data but bmsql_config has no warehouses row")

	require.NoError(t, w.Cleanup(ctx, db))
	var tables int
	require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()").Scan(&tables))
	require.Zero(t, tables)
}
