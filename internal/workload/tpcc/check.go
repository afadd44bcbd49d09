package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/walab/walab/internal/workload"
)

// condition is one consistency condition of TPC-C clause 3.3.2 as a query
// that returns the violating rows (or, for counts, one row with the number
// of violations). An empty result or a zero count passes.
type condition struct {
	name  string
	query string
	count bool // the query returns one COUNT(*) row
}

// customerDelivered joins each customer c to ol.s, the sum of its
// delivered order lines' OL_AMOUNT (conditions 3.3.2.10 and 3.3.2.12).
const customerDelivered = `  LEFT JOIN (SELECT o.o_w_id, o.o_d_id, o.o_c_id, SUM(l.ol_amount) s
               FROM bmsql_oorder o JOIN bmsql_order_line l
                 ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
              WHERE {{o.o_w_id}} AND l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) ol
    ON ol.o_w_id = c.c_w_id AND ol.o_d_id = c.c_d_id AND ol.o_c_id = c.c_id
`

// In the queries, {{col}} stands for the warehouse filter on col: TRUE for
// a whole-database check, col BETWEEN from AND to for a range.
var conditions = []condition{
	{name: "3.3.2.1 W_YTD = sum(D_YTD)", query: `SELECT w.w_id FROM bmsql_warehouse w JOIN bmsql_district d ON d.d_w_id = w.w_id
 WHERE {{w.w_id}} GROUP BY w.w_id, w.w_ytd HAVING w.w_ytd <> SUM(d.d_ytd)`},
	{name: "3.3.2.2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", query: `SELECT d.d_w_id, d.d_id FROM bmsql_district d
  LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) mo FROM bmsql_oorder WHERE {{o_w_id}} GROUP BY o_w_id, o_d_id) o
    ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
  LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) mno FROM bmsql_new_order WHERE {{no_w_id}} GROUP BY no_w_id, no_d_id) n
    ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
 WHERE {{d.d_w_id}} AND (o.mo IS NULL OR d.d_next_o_id - 1 <> o.mo OR (n.mno IS NOT NULL AND d.d_next_o_id - 1 <> n.mno))`},
	{name: "3.3.2.3 max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER)", query: `SELECT no_w_id, no_d_id FROM bmsql_new_order
 WHERE {{no_w_id}} GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)`},
	{name: "3.3.2.4 sum(O_OL_CNT) = count(ORDER-LINE)", query: `SELECT o.o_w_id, o.o_d_id FROM
  (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) s FROM bmsql_oorder WHERE {{o_w_id}} GROUP BY o_w_id, o_d_id) o
  LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) c FROM bmsql_order_line WHERE {{ol_w_id}} GROUP BY ol_w_id, ol_d_id) l
    ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
 WHERE l.c IS NULL OR o.s <> l.c`},
	{name: "3.3.2.5 O_CARRIER_ID is null iff a NEW-ORDER row exists", count: true, query: `SELECT COUNT(*) FROM bmsql_oorder o
  LEFT JOIN bmsql_new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
 WHERE {{o.o_w_id}} AND (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)`},
	{name: "3.3.2.6 O_OL_CNT = count(ORDER-LINE) per order", query: `SELECT o.o_w_id, o.o_d_id, o.o_id FROM bmsql_oorder o
  LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) c FROM bmsql_order_line WHERE {{ol_w_id}} GROUP BY ol_w_id, ol_d_id, ol_o_id) l
    ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
 WHERE {{o.o_w_id}} AND (l.c IS NULL OR l.c <> o.o_ol_cnt)`},
	{name: "3.3.2.7 OL_DELIVERY_D is null iff O_CARRIER_ID is null", count: true, query: `SELECT COUNT(*) FROM bmsql_oorder o
  JOIN bmsql_order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
 WHERE {{o.o_w_id}} AND (o.o_carrier_id IS NULL) <> (l.ol_delivery_d IS NULL)`},
	{name: "3.3.2.8 W_YTD = sum(H_AMOUNT)", query: `SELECT w.w_id FROM bmsql_warehouse w
  LEFT JOIN (SELECT h_w_id, SUM(h_amount) s FROM bmsql_history WHERE {{h_w_id}} GROUP BY h_w_id) h ON h.h_w_id = w.w_id
 WHERE {{w.w_id}} AND (h.s IS NULL OR w.w_ytd <> h.s)`},
	{name: "3.3.2.9 D_YTD = sum(H_AMOUNT) per district", query: `SELECT d.d_w_id, d.d_id FROM bmsql_district d
  LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) s FROM bmsql_history WHERE {{h_w_id}} GROUP BY h_w_id, h_d_id) h
    ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
 WHERE {{d.d_w_id}} AND (h.s IS NULL OR d.d_ytd <> h.s)`},
	{name: "3.3.2.10 C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", query: `SELECT c.c_w_id, c.c_d_id, c.c_id FROM bmsql_customer c
` + customerDelivered + `  LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) s FROM bmsql_history WHERE {{h_c_w_id}} GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
    ON h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id
 WHERE {{c.c_w_id}} AND c.c_balance <> COALESCE(ol.s, 0) - COALESCE(h.s, 0)`},
	{name: "3.3.2.11 count(ORDER) - count(NEW-ORDER) = initial delivered orders (until the first Delivery)"},
	{name: "3.3.2.12 C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", query: `SELECT c.c_w_id, c.c_d_id, c.c_id FROM bmsql_customer c
` + customerDelivered + ` WHERE {{c.c_w_id}} AND c.c_balance + c.c_ytd_payment <> COALESCE(ol.s, 0)`},
}

// warehouseRange restricts a check to warehouses From..To (both 0: all).
type warehouseRange struct{ From, To int }

var filterMarker = regexp.MustCompile(`\{\{([a-z_.]+)\}\}`)

// render substitutes the {{col}} markers.
func (r warehouseRange) render(q string) string {
	return filterMarker.ReplaceAllStringFunc(q, func(m string) string {
		if r.From == 0 && r.To == 0 {
			return "TRUE"
		}
		col := filterMarker.FindStringSubmatch(m)[1]
		return fmt.Sprintf("%s BETWEEN %d AND %d", col, r.From, r.To)
	})
}

// Check runs the consistency conditions 1-12 of clause 3.3.2 over the
// whole database. Conditions 1-4 must hold at any time; 5-10 and 12 hold as
// well, since every profile keeps them; 11 holds only until the first
// Delivery after the load and is reported as not applicable after that;
// 8-10 and 12 are reported as not applicable after a KeepSize run. A
// failing condition names up to ten offending keys.
func (w *Workload) Check(ctx context.Context, db *sql.DB) ([]workload.CheckResult, error) {
	return w.CheckWarehouses(ctx, db, 0, 0)
}

// CheckWarehouses is Check restricted to warehouses from..to (inclusive;
// 0, 0 means all), to sample a large database or check it in shards.
func (w *Workload) CheckWarehouses(ctx context.Context, db *sql.DB, from, to int) ([]workload.CheckResult, error) {
	if from < 0 || to < from || (from == 0) != (to == 0) {
		return nil, fmt.Errorf("tpcc check: warehouse range %d..%d: want 1 <= from <= to, or 0, 0 for all", from, to)
	}
	rng := warehouseRange{From: from, To: to}
	cfg, err := readConfig(ctx, w.names.on(db))
	if err != nil {
		return nil, err
	}
	if cfg.warehouses == 0 {
		return nil, fmt.Errorf("tpcc check: bmsql_config has no warehouses row: nothing loaded")
	}
	var out []workload.CheckResult
	for _, c := range conditions {
		var res workload.CheckResult
		switch {
		case cfg.keptSize && slices.ContainsFunc(keptSizeConditions, func(p string) bool { return strings.HasPrefix(c.name, p) }):
			res = workload.CheckResult{Name: c.name, Passed: true,
				Detail: "not applicable: a run with --keep-size deleted old payments and delivered orders (" + cfgKeptSize + " in bmsql_config), which this sum counts"}
		case strings.HasPrefix(c.name, "3.3.2.11 "):
			res, err = checkInitialDelivered(ctx, w.names, db, cfg.scale, rng)
		case c.count:
			c.query = w.names.sql(rng.render(c.query))
			res, err = checkCount(ctx, db, c)
		default:
			c.query = w.names.sql(rng.render(c.query))
			res, err = checkRows(ctx, db, c)
		}
		if err != nil {
			return out, fmt.Errorf("tpcc check %s: %w", c.name, err)
		}
		out = append(out, res)
	}
	return out, nil
}

func checkCount(ctx context.Context, db *sql.DB, c condition) (workload.CheckResult, error) {
	var n int64
	if err := db.QueryRowContext(ctx, c.query).Scan(&n); err != nil {
		return workload.CheckResult{}, err
	}
	if n != 0 {
		return workload.CheckResult{Name: c.name, Detail: fmt.Sprintf("%d violating rows", n)}, nil
	}
	return workload.CheckResult{Name: c.name, Passed: true, Detail: "no violations"}, nil
}

const maxReported = 10

func checkRows(ctx context.Context, db *sql.DB, c condition) (workload.CheckResult, error) {
	rows, err := db.QueryContext(ctx, c.query)
	if err != nil {
		return workload.CheckResult{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return workload.CheckResult{}, err
	}
	vals := make([]sql.NullString, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	var keys []string
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return workload.CheckResult{}, err
		}
		n++
		if len(keys) < maxReported {
			parts := make([]string, len(vals))
			for i, v := range vals {
				parts[i] = v.String
			}
			keys = append(keys, "("+strings.Join(parts, ",")+")")
		}
	}
	if err := rows.Err(); err != nil {
		return workload.CheckResult{}, err
	}
	if n == 0 {
		return workload.CheckResult{Name: c.name, Passed: true, Detail: "no violations"}, nil
	}
	return workload.CheckResult{Name: c.name,
		Detail: fmt.Sprintf("%d violations (%s) at %s: %s", n, strings.Join(cols, ","), c.name, strings.Join(keys, " "))}, nil
}

// checkInitialDelivered is condition 11. The load delivers the orders up to
// 2100 of each district; only Delivery changes count(ORDER) - count(NEW-ORDER)
// (a New-Order adds one row to each), so the condition is checked while no
// order above the initial 2100 has a carrier and reported not applicable once
// one has.
func checkInitialDelivered(ctx context.Context, names tableNames, db *sql.DB, sc scale, rng warehouseRange) (workload.CheckResult, error) {
	name := conditions[10].name
	var later int64
	if err := db.QueryRowContext(ctx, names.sql(rng.render("SELECT COUNT(*) FROM bmsql_oorder WHERE {{o_w_id}} AND o_id > ? AND o_carrier_id IS NOT NULL")), sc.delivered()).Scan(&later); err != nil {
		return workload.CheckResult{}, err
	}
	if later > 0 {
		return workload.CheckResult{Name: name, Passed: true,
			Detail: fmt.Sprintf("not applicable: %d orders were delivered after the load; the condition holds only before the first Delivery", later)}, nil
	}
	c := condition{name: name, query: fmt.Sprintf(`SELECT o.o_w_id, o.o_d_id FROM
  (SELECT o_w_id, o_d_id, COUNT(*) c FROM bmsql_oorder WHERE {{o_w_id}} GROUP BY o_w_id, o_d_id) o
  LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) c FROM bmsql_new_order WHERE {{no_w_id}} GROUP BY no_w_id, no_d_id) n
    ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id
 WHERE o.c - COALESCE(n.c, 0) <> %d`, sc.delivered())}
	c.query = names.sql(rng.render(c.query))
	return checkRows(ctx, db, c)
}
