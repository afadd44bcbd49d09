package tpcc

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// TestPrepareRunCheck loads a small data set, drives the five profiles from
// concurrent terminals and verifies every consistency condition afterwards.
func TestPrepareRunCheck(t *testing.T) {
	t.Parallel() // each test has its own database; they mostly wait on the server
	for _, tc := range []struct {
		name       string
		warehouses int
		fixed      bool
		terminals  int
	}{
		{"one_warehouse_fixed", 1, true, 3},
		// Two warehouses exercise remote payments and remote supply lines.
		{"two_warehouses_random", 2, false, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db, _ := testenv.MariaDB(t, "walab_test_tpcc_run_"+tc.name[:3])
			ctx := context.Background()
			w := newTestWorkload(t, Options{Warehouses: tc.warehouses, TerminalWarehouseFixed: tc.fixed, Seed: 7, scale: smallScale})
			start := time.Now()
			require.NoError(t, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 4}))
			t.Logf("prepare: %v", time.Since(start))
			start = time.Now()
			res := requireChecksPass(t, db, w)
			t.Logf("check: %v", time.Since(start))
			require.Contains(t, res[10].Detail, "no violations", "condition 11 is checked right after the load")

			var before int64
			require.NoError(t, db.QueryRow("SELECT SUM(d_next_o_id) FROM bmsql_district").Scan(&before))
			start = time.Now()
			counts, _ := drive(t, db, w, tc.terminals, 80)
			t.Logf("run: %v %v", time.Since(start), counts)
			for _, tx := range txTypes {
				require.NotZero(t, counts[tx][workload.Committed], tx)
			}
			var after int64
			require.NoError(t, db.QueryRow("SELECT SUM(d_next_o_id) FROM bmsql_district").Scan(&after))
			// Committed New-Orders advance d_next_o_id; user rollbacks undo it.
			require.EqualValues(t, counts[TxNewOrder][workload.Committed], after-before)

			res = requireChecksPass(t, db, w)
			require.Contains(t, res[10].Detail, "not applicable")

			// Stock bookkeeping matches the order lines of committed New-Orders.
			var cnt, ytd, remote, lines, qty, remoteLines int64
			require.NoError(t, db.QueryRow("SELECT SUM(s_order_cnt), SUM(s_ytd), SUM(s_remote_cnt) FROM bmsql_stock").Scan(&cnt, &ytd, &remote))
			require.NoError(t, db.QueryRow("SELECT COUNT(*), COALESCE(SUM(ol_quantity), 0), COALESCE(SUM(ol_supply_w_id <> ol_w_id), 0) "+
				"FROM bmsql_order_line WHERE ol_o_id > ?", smallScale.Customers).Scan(&lines, &qty, &remoteLines))
			require.NotZero(t, lines)
			require.Equal(t, lines, cnt, "s_order_cnt")
			require.Equal(t, qty, ytd, "s_ytd")
			require.Equal(t, remoteLines, remote, "s_remote_cnt")
			var badQty int
			require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM bmsql_stock WHERE s_quantity < 0 OR s_quantity > 100 + 91").Scan(&badQty))
			require.Zero(t, badQty)

			if tc.warehouses > 1 {
				var remotePay, remoteLines int
				require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM bmsql_history WHERE h_c_w_id <> h_w_id").Scan(&remotePay))
				require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM bmsql_order_line WHERE ol_supply_w_id <> ol_w_id").Scan(&remoteLines))
				// 15% of this run's payments are remote (the loaded history is all local).
				payments := float64(counts[TxPayment][workload.Committed])
				sigma := math.Sqrt(payments * 0.15 * 0.85)
				require.InDelta(t, 0.15*payments, float64(remotePay), 4*sigma, "15%% of %v payments are remote", payments)
				require.NotZero(t, remoteLines, "1% of order lines are supplied remotely")
			}
		})
	}
}
