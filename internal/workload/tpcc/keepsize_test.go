package tpcc

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// tableRows are the row counts of the tables a run grows.
type tableRows struct {
	orders, lines, history int64
	ordersPerDistrict      map[int]int64
}

func countRows(t *testing.T, db *sql.DB) tableRows {
	t.Helper()
	var r tableRows
	require.NoError(t, db.QueryRow("SELECT (SELECT COUNT(*) FROM bmsql_oorder), (SELECT COUNT(*) FROM bmsql_order_line), "+
		"(SELECT COUNT(*) FROM bmsql_history)").Scan(&r.orders, &r.lines, &r.history))
	rows, err := db.Query("SELECT o_d_id, COUNT(*) FROM bmsql_oorder GROUP BY o_d_id")
	require.NoError(t, err)
	defer rows.Close()
	r.ordersPerDistrict = map[int]int64{}
	for rows.Next() {
		var d int
		var n int64
		require.NoError(t, rows.Scan(&d, &n))
		r.ordersPerDistrict[d] = n
	}
	require.NoError(t, rows.Err())
	return r
}

// deliveryCycle runs one Delivery on a terminal of w: every district of
// the (only) warehouse delivers its oldest new order and trims its orders,
// and the payments w's terminals committed since the last Delivery go.
func deliveryCycle(t *testing.T, db *sql.DB, w *Workload) {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	term := w.NewTerminal(99, rand.New(rand.NewPCG(99, 1)))
	defer term.(interface{ Close() error }).Close()
	_, err = term.Run(ctx, conn, TxDelivery)
	require.NoError(t, err)
	require.Zero(t, w.paymentsToTrim.Load(), "every committed payment's row deleted")
}

// TestKeepSizeHoldsTheTables: a plain run grows the order, order-line and
// history tables by what it commits; with KeepSize, after every delivery
// cycle of four rounds the order tables are back at the load's size
// (exactly the loaded orders per district, the order lines within 5 % of
// the loaded count: orders have 5-15 lines) and the history table at the
// rows it held when the KeepSize run started. Every consistency condition the deletions leave intact still
// holds; the four on sums of deleted rows say not applicable.
func TestKeepSizeHoldsTheTables(t *testing.T) {
	t.Parallel()
	db, _ := testenv.MariaDB(t, "walab_test_tpcc_keepsize")
	ctx := context.Background()
	plain := newTestWorkload(t, Options{Warehouses: 1, Seed: 11, scale: smallScale})
	require.NoError(t, plain.Prepare(ctx, db, workload.PrepareOptions{Workers: 2}))
	loaded := countRows(t, db)
	require.EqualValues(t, districtsPerWarehouse*smallScale.Customers, loaded.orders)
	require.EqualValues(t, districtsPerWarehouse*smallScale.Customers, loaded.history)

	// Without KeepSize the tables grow by every committed New-Order and Payment.
	counts, _ := drive(t, db, plain, 3, 150)
	grown := countRows(t, db)
	require.EqualValues(t, counts[TxNewOrder][workload.Committed], grown.orders-loaded.orders)
	require.EqualValues(t, counts[TxPayment][workload.Committed], grown.history-loaded.history)
	res := requireChecksPass(t, db, plain)
	require.Equal(t, "no violations", res[7].Detail, "a plain run leaves condition 8 checked")

	kept := newTestWorkload(t, Options{Warehouses: 1, Seed: 12, KeepSize: true, scale: smallScale})
	for round := range 4 {
		counts, _ := drive(t, db, kept, 3, 150)
		require.NotZero(t, counts[TxNewOrder][workload.Committed])
		deliveryCycle(t, db, kept)
		got := countRows(t, db)
		t.Logf("round %d: orders %d, order lines %d (loaded %d), history %d", round, got.orders, got.lines, loaded.lines, got.history)
		for d := 1; d <= districtsPerWarehouse; d++ {
			require.EqualValues(t, smallScale.Customers, got.ordersPerDistrict[d], "district %d's orders after round %d", d, round)
		}
		require.InDelta(t, float64(loaded.lines), float64(got.lines), 0.05*float64(loaded.lines), "order lines after round %d", round)
		require.Equal(t, grown.history, got.history, "history after round %d: as many rows as when the run started", round)
	}
	res = requireChecksPass(t, db, kept)
	for _, r := range res {
		na := strings.HasPrefix(r.Detail, "not applicable: a run with --keep-size")
		want := false
		for _, p := range keptSizeConditions {
			want = want || strings.HasPrefix(r.Name, p)
		}
		require.Equal(t, want, na, "%s: %s", r.Name, r.Detail)
	}
}

// TestKeepSizeOffIsBenchmarkSQL: without the option a Delivery deletes no
// order and writes no walab_kept_size row.
func TestKeepSizeOffIsBenchmarkSQL(t *testing.T) {
	t.Parallel()
	db, _ := testenv.MariaDB(t, "walab_test_tpcc_keepsize_off")
	ctx := context.Background()
	w := newTestWorkload(t, Options{Warehouses: 1, Seed: 5, Weights: Weights{NewOrder: 50, Delivery: 50}, scale: smallScale})
	require.NoError(t, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2}))
	counts, _ := drive(t, db, w, 2, 100)
	got := countRows(t, db)
	require.EqualValues(t, int64(districtsPerWarehouse*smallScale.Customers)+int64(counts[TxNewOrder][workload.Committed]), got.orders)
	var n int
	require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM bmsql_config WHERE cfg_name = ?", cfgKeptSize).Scan(&n))
	require.Zero(t, n)
}
