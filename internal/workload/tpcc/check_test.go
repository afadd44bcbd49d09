package tpcc

import (
	"context"
	"database/sql"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// TestCheckDetectsViolations breaks the loaded data in known ways and
// expects exactly the affected conditions to fail, naming the keys.
func TestCheckDetectsViolations(t *testing.T) {
	t.Parallel() // each test has its own database; they mostly wait on the server
	db, _ := testenv.MariaDB(t, "walab_test_tpcc_check")
	ctx := context.Background()
	w := newTestWorkload(t, Options{Warehouses: 1, Seed: 9, scale: smallScale})
	require.NoError(t, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2}))
	requireLoadedData(t, db, 1, smallScale)
	requireChecksPass(t, db, w)

	for _, q := range []string{
		"UPDATE bmsql_warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1",                                      // 1, 8
		"DELETE FROM bmsql_new_order WHERE no_w_id = 1 AND no_d_id = 3 AND no_o_id = 250",                  // 3, 5, 11
		"DELETE FROM bmsql_order_line WHERE ol_w_id = 1 AND ol_d_id = 4 AND ol_o_id = 7 AND ol_number = 1", // 4, 6
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	res, err := w.Check(ctx, db)
	require.NoError(t, err)
	failed := map[string]string{}
	for _, r := range res {
		if !r.Passed {
			failed[r.Name[:len("3.3.2.1")+1]] = r.Detail
		}
	}
	require.Len(t, failed, 7, "%v", failed)
	for _, n := range []string{"3.3.2.1 ", "3.3.2.8 ", "3.3.2.3 ", "3.3.2.5 ", "3.3.2.4 ", "3.3.2.6 "} {
		require.Contains(t, failed, n)
	}
	require.Contains(t, failed["3.3.2.1 "], "(1)", "names the warehouse")
	require.Contains(t, failed["3.3.2.6 "], "(1,4,7)", "names the order")
	require.Contains(t, failed, "3.3.2.11", "the load is still in its initial state, so 11 is checked")

	// A range holding warehouse 1 finds the same; one outside it finds nothing.
	res, err = w.CheckWarehouses(ctx, db, 1, 1)
	require.NoError(t, err)
	n := 0
	for _, r := range res {
		if !r.Passed {
			n++
		}
	}
	require.Equal(t, 7, n)
	res, err = w.CheckWarehouses(ctx, db, 2, 3)
	require.NoError(t, err)
	for _, r := range res {
		require.True(t, r.Passed, "%s: %s", r.Name, r.Detail)
	}
	for _, bad := range [][2]int{{0, 1}, {2, 1}, {-1, 3}} {
		_, err = w.CheckWarehouses(ctx, db, bad[0], bad[1])
		require.ErrorContains(t, err, "warehouse range")
	}
}

// requireLoadedData checks the generated content against clause 4.3.3.1.
func requireLoadedData(t testing.TB, db *sql.DB, warehouses int, sc scale) {
	t.Helper()
	count := func(q string, args ...any) int {
		var n int
		require.NoError(t, db.QueryRow(q, args...).Scan(&n), q)
		return n
	}
	w := warehouses
	require.Equal(t, sc.Items, count("SELECT COUNT(*) FROM bmsql_item"))
	require.Equal(t, w*sc.Items, count("SELECT COUNT(*) FROM bmsql_stock"))
	require.Equal(t, w*10, count("SELECT COUNT(*) FROM bmsql_district"))
	require.Equal(t, w*10*sc.Customers, count("SELECT COUNT(*) FROM bmsql_customer"))
	require.Equal(t, w*10*sc.Customers, count("SELECT COUNT(*) FROM bmsql_history"))
	require.Equal(t, w*10*sc.Customers, count("SELECT COUNT(*) FROM bmsql_oorder"))
	require.Equal(t, w*10*sc.newOrders(), count("SELECT COUNT(*) FROM bmsql_new_order"))
	// o_c_id is a permutation of the customers in every district.
	require.Equal(t, w*10*sc.Customers, count("SELECT SUM(c) FROM (SELECT COUNT(DISTINCT o_c_id) c FROM bmsql_oorder GROUP BY o_w_id, o_d_id) x"))
	// The undelivered orders are the last ones of each district.
	require.Equal(t, sc.delivered()+1, count("SELECT MIN(no_o_id) FROM bmsql_new_order"))
	require.Equal(t, sc.Customers, count("SELECT MAX(no_o_id) FROM bmsql_new_order"))
	require.Zero(t, count("SELECT COUNT(*) FROM bmsql_order_line WHERE ol_o_id <= ? AND (ol_amount <> 0 OR ol_delivery_d IS NULL)", sc.delivered()))
	require.Equal(t, w*10*sc.Customers, count("SELECT COUNT(*) FROM bmsql_customer WHERE c_balance = -10 AND c_ytd_payment = 10 AND c_middle = 'OE'"))
	// The first 1000 customers of a district carry the names 0..999 in order.
	rows, err := db.Query("SELECT c_id, c_last FROM bmsql_customer WHERE c_w_id = 1 AND c_d_id = 2 AND c_id <= 1000")
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var id int
		var last string
		require.NoError(t, rows.Scan(&id, &last))
		require.Equal(t, LastName(id-1), last, "c_id %d", id)
	}
	require.NoError(t, rows.Err())
	// 10% bad credit and 10% ORIGINAL items: 4-sigma binomial bounds.
	within10pct := func(got, n int, what string) {
		sigma := math.Sqrt(float64(n) * 0.1 * 0.9)
		require.InDelta(t, float64(n)*0.1, got, 4*sigma, what)
	}
	within10pct(count("SELECT COUNT(*) FROM bmsql_customer WHERE c_credit = 'BC'"), w*10*sc.Customers, "c_credit BC")
	within10pct(count("SELECT COUNT(*) FROM bmsql_item WHERE i_data LIKE '%ORIGINAL%'"), sc.Items, "i_data ORIGINAL")
}

func TestWarehouseRangeRender(t *testing.T) {
	q := "SELECT 1 FROM t WHERE {{o.o_w_id}} AND x IN (SELECT y FROM u WHERE {{ol_w_id}})"
	require.Equal(t, "SELECT 1 FROM t WHERE TRUE AND x IN (SELECT y FROM u WHERE TRUE)", warehouseRange{}.render(q))
	require.Equal(t, "SELECT 1 FROM t WHERE o.o_w_id BETWEEN 3 AND 9 AND x IN (SELECT y FROM u WHERE ol_w_id BETWEEN 3 AND 9)",
		warehouseRange{From: 3, To: 9}.render(q))
	for _, c := range conditions {
		require.NotContains(t, warehouseRange{From: 1, To: 2}.render(c.query), "{{", c.name)
	}
}
