package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/walab/walab/internal/workload"
)

type orderLine struct {
	number  int // ol_number: position in the order as entered
	item    int
	supplyW int
	qty     int
}

// newOrder is spec 2.4. Stock rows are locked in (supply warehouse, item)
// order, as BenchmarkSQL does since 4.1.2, so two New-Orders never wait on
// each other in a cycle. The 1% rollback line carries an unused item id and
// is processed last, after every valid line (spec 2.4.2.3).
// newOrderTx is one New-Order transaction's input and what it read.
type newOrderTx struct {
	w, d, c, n int
	allLocal   int
	rbk        bool        // the spec's 1 % user rollback: the last line's item is unused
	lines      []orderLine // as drawn
	valid      []orderLine // the lines with real items, by supply warehouse and item
	oID        int
	items      map[int]itemRow
	stock      map[stockKey]*stockRow
}

type itemRow struct {
	price int64
	data  string
}

type stockKey struct{ w, i int }

type stockRow struct {
	qty  int
	data string
	dist string
}

func (t *terminal) newOrder(ctx context.Context) (workload.Outcome, error) {
	tx := t.drawNewOrder()
	if err := t.begin(ctx); err != nil {
		return 0, err
	}
	if err := t.newOrderHeader(ctx, &tx); err != nil {
		return 0, err
	}
	if err := t.newOrderItems(ctx, &tx); err != nil {
		return 0, err
	}
	if err := t.newOrderStock(ctx, &tx); err != nil {
		return 0, err
	}
	if err := t.newOrderLines(ctx, &tx); err != nil {
		return 0, err
	}
	if tx.rbk {
		if _, ok := tx.items[tx.lines[tx.n-1].item]; ok {
			return 0, fmt.Errorf("new_order: the rollback item id %d exists: bmsql_item holds more items than bmsql_config says", tx.lines[tx.n-1].item)
		}
		// The spec's user rollback on the unused item, after all the valid
		// lines were processed: a business outcome, not an error.
		if err := t.control(ctx, "ROLLBACK"); err != nil {
			return 0, err
		}
		return workload.UserRollback, nil
	}
	return workload.Committed, t.commit(ctx)
}

// drawNewOrder draws the transaction's input (TPC-C 2.4.1).
func (t *terminal) drawNewOrder() newOrderTx {
	w := t.warehouse()
	tx := newOrderTx{w: w, d: uniform(t.r, 1, districtsPerWarehouse), c: t.customerID(), n: uniform(t.r, 5, 15), allLocal: 1}
	tx.rbk = uniform(t.r, 1, 100) == 1
	tx.lines = make([]orderLine, tx.n)
	for i := range tx.lines {
		l := orderLine{number: i + 1, supplyW: w, qty: uniform(t.r, 1, 10),
			item: NURand(t.r, aOLIID, t.st.run.OLIID, 1, t.st.scale.Items)}
		if t.st.warehouses > 1 && uniform(t.r, 1, 100) == 1 {
			l.supplyW = t.otherWarehouse(w)
			tx.allLocal = 0
		}
		tx.lines[i] = l
	}
	tx.valid = tx.lines
	if tx.rbk {
		tx.lines[tx.n-1].item = t.st.scale.Items + 1
		tx.valid = tx.lines[:tx.n-1]
	}
	slices.SortFunc(tx.valid, func(a, b orderLine) int {
		if a.supplyW != b.supplyW {
			return a.supplyW - b.supplyW
		}
		return a.item - b.item
	})
	return tx
}

// newOrderHeader: the district's next order id, the customer, and the
// order and new-order rows.
func (t *terminal) newOrderHeader(ctx context.Context, tx *newOrderTx) error {
	w, d, c := tx.w, tx.d, tx.c
	var dTax string
	found, err := t.queryRow(ctx, stNODistrict, []any{w, d}, &dTax, &tx.oID)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("new_order: district (%d, %d) not found", w, d)
	}
	if _, err := t.exec(ctx, stNODistrictUpdate, w, d); err != nil {
		return err
	}
	var cDiscount, cLast, cCredit, wTax string
	if found, err = t.queryRow(ctx, stNOCustomer, []any{w, d, c}, &cDiscount, &cLast, &cCredit, &wTax); err != nil {
		return err
	} else if !found {
		return fmt.Errorf("new_order: customer (%d, %d, %d) not found", w, d, c)
	}
	if _, err := t.exec(ctx, stNOOrder, tx.oID, d, w, c, tx.n, tx.allLocal); err != nil {
		return err
	}
	_, err = t.exec(ctx, stNONewOrder, tx.oID, d, w)
	return err
}

// newOrderItems reads all lines' items in one statement. The rollback
// line's id is absent.
func (t *terminal) newOrderItems(ctx context.Context, tx *newOrderTx) error {
	ids := make([]any, maxOrderLines)
	for i := range ids {
		ids[i] = tx.lines[min(i, tx.n-1)].item
	}
	tx.items = make(map[int]itemRow, tx.n)
	return t.query(ctx, stNOItems, ids, func(r *sql.Rows) error {
		var id int
		var price, name, data string
		if err := r.Scan(&id, &price, &name, &data); err != nil {
			return err
		}
		p, err := parseCents(price)
		if err != nil {
			return fmt.Errorf("new_order: i_price of item %d: %w", id, err)
		}
		tx.items[id] = itemRow{price: p, data: data}
		return nil
	})
}

// newOrderStock makes one locking read per supply warehouse, in warehouse
// order.
func (t *terminal) newOrderStock(ctx context.Context, tx *newOrderTx) error {
	tx.stock = make(map[stockKey]*stockRow, tx.n)
	valid := tx.valid
	for i := 0; i < len(valid); {
		sw := valid[i].supplyW
		j := i
		for j < len(valid) && valid[j].supplyW == sw {
			j++
		}
		args := make([]any, 1+maxOrderLines)
		args[0] = sw
		for k := range maxOrderLines {
			args[1+k] = valid[min(i+k, j-1)].item
		}
		var dist [10]sql.NullString
		err := t.query(ctx, stNOStocks, args, func(r *sql.Rows) error {
			var id, qty int
			var data sql.NullString
			if err := r.Scan(&id, &qty, &data, &dist[0], &dist[1], &dist[2], &dist[3], &dist[4],
				&dist[5], &dist[6], &dist[7], &dist[8], &dist[9]); err != nil {
				return err
			}
			tx.stock[stockKey{sw, id}] = &stockRow{qty: qty, data: data.String, dist: dist[tx.d-1].String}
			return nil
		})
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// newOrderLines writes every stock update in one statement, an upsert on
// rows that exist and are locked (the one round trip BenchmarkSQL gets from
// a JDBC batch with rewriteBatchedStatements; a repeated item appears twice
// and is updated twice, in order), and the order lines in another.
func (t *terminal) newOrderLines(ctx context.Context, tx *newOrderTx) error {
	up := newInserterSize(t.conn, t.w.names.sql("bmsql_stock"), "s_w_id, s_i_id, s_quantity, s_ytd, s_order_cnt, s_remote_cnt", nil, 1024)
	up.suffix = " ON DUPLICATE KEY UPDATE s_quantity = VALUES(s_quantity), s_ytd = s_ytd + VALUES(s_ytd), " +
		"s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + VALUES(s_remote_cnt)"
	ol := newInserterSize(t.conn, t.w.names.sql("bmsql_order_line"),
		"ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info", nil, 2048)
	for _, l := range tx.valid {
		it, ok := tx.items[l.item]
		if !ok {
			return fmt.Errorf("new_order: item %d not found", l.item)
		}
		s := tx.stock[stockKey{l.supplyW, l.item}]
		if s == nil {
			return fmt.Errorf("new_order: stock (%d, %d) not found", l.supplyW, l.item)
		}
		// Tracked in memory so a repeated item sees its earlier line's update.
		if s.qty >= l.qty+10 {
			s.qty -= l.qty
		} else {
			s.qty = s.qty - l.qty + 91
		}
		remote := 0
		if l.supplyW != tx.w {
			remote = 1
		}
		up.row().int(l.supplyW).int(l.item).int(s.qty).int(l.qty).int(1).int(remote)
		ol.row().int(tx.oID).int(tx.d).int(tx.w).int(l.number).int(l.item).int(l.supplyW).int(l.qty).
			raw(cents(it.price * int64(l.qty))).str(s.dist)
	}
	t.res.Writes += 2
	if err := up.flush(ctx); err != nil {
		return fmt.Errorf("new_order.update_stock: %w", err)
	}
	if err := ol.flush(ctx); err != nil {
		return fmt.Errorf("new_order.insert_order_lines: %w", err)
	}
	return nil
}

// customerByName returns the customer at position ceil(n/2) of those with
// the last name, ordered by first name (spec 2.5.2.2, 2.6.2.2).
func (t *terminal) customerByName(ctx context.Context, w, d int, last string) (int, error) {
	var ids []int
	err := t.query(ctx, stCustomerByName, []any{w, d, last}, func(r *sql.Rows) error {
		var id int
		if err := r.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("no customer named %s in (%d, %d)", last, w, d)
	}
	return ids[(len(ids)+1)/2-1], nil
}

// payment is spec 2.5: 15% of payments are for a customer of another
// warehouse when there is more than one, 60% select the customer by last name.
func (t *terminal) payment(ctx context.Context) error {
	w := t.warehouse()
	d := uniform(t.r, 1, districtsPerWarehouse)
	cW, cD := w, d
	if t.st.warehouses > 1 && uniform(t.r, 1, 100) > 85 {
		cW = t.otherWarehouse(w)
		cD = uniform(t.r, 1, districtsPerWarehouse)
	}
	byName := uniform(t.r, 1, 100) <= 60
	var last string
	cID := 0
	if byName {
		last = t.lastName()
	} else {
		cID = t.customerID()
	}
	amount := int64(uniform(t.r, 100, 500000))
	amt := cents(amount)

	if err := t.begin(ctx); err != nil {
		return err
	}
	if _, err := t.exec(ctx, stPayWarehouseUpdate, amt, w); err != nil {
		return err
	}
	var wName string
	if found, err := t.queryRow(ctx, stPayWarehouse, []any{w}, &wName, discard{}, discard{}, discard{}, discard{}, discard{}); err != nil {
		return err
	} else if !found {
		return fmt.Errorf("payment: warehouse %d not found", w)
	}
	if _, err := t.exec(ctx, stPayDistrictUpdate, amt, w, d); err != nil {
		return err
	}
	var dName string
	if found, err := t.queryRow(ctx, stPayDistrict, []any{w, d}, &dName, discard{}, discard{}, discard{}, discard{}, discard{}); err != nil {
		return err
	} else if !found {
		return fmt.Errorf("payment: district (%d, %d) not found", w, d)
	}
	if byName {
		id, err := t.customerByName(ctx, cW, cD, last)
		if err != nil {
			return fmt.Errorf("payment: %w", err)
		}
		cID = id
	}
	var credit string
	dest := []any{discard{}, discard{}, discard{}, discard{}, discard{}, discard{}, discard{}, discard{}, discard{}, discard{},
		&credit, discard{}, discard{}, discard{}}
	if found, err := t.queryRow(ctx, stPayCustomer, []any{cW, cD, cID}, dest...); err != nil {
		return err
	} else if !found {
		return fmt.Errorf("payment: customer (%d, %d, %d) not found", cW, cD, cID)
	}
	if credit == "BC" {
		var data string
		if _, err := t.queryRow(ctx, stPayCustomerData, []any{cW, cD, cID}, &data); err != nil {
			return err
		}
		data = fmt.Sprintf("%d %d %d %d %d %s %s", cID, cD, cW, d, w, amt, data)
		if len(data) > 500 {
			data = data[:500]
		}
		if _, err := t.exec(ctx, stPayCustomerUpdateBC, amt, amt, data, cW, cD, cID); err != nil {
			return err
		}
	} else if _, err := t.exec(ctx, stPayCustomerUpdate, amt, amt, cW, cD, cID); err != nil {
		return err
	}
	if _, err := t.exec(ctx, stPayHistory, cID, cD, cW, d, w, amt, wName+"    "+dName); err != nil {
		return err
	}
	return t.commitPayment(ctx)
}

// orderStatus is spec 2.6 (read-only): the customer's newest order and its lines.
func (t *terminal) orderStatus(ctx context.Context) error {
	w := t.warehouse()
	d := uniform(t.r, 1, districtsPerWarehouse)
	if err := t.begin(ctx); err != nil {
		return err
	}
	var cID int
	if uniform(t.r, 1, 100) <= 60 {
		id, err := t.customerByName(ctx, w, d, t.lastName())
		if err != nil {
			return fmt.Errorf("order_status: %w", err)
		}
		cID = id
	} else {
		cID = t.customerID()
	}
	if found, err := t.queryRow(ctx, stOSCustomer, []any{w, d, cID}, discard{}, discard{}, discard{}, discard{}); err != nil {
		return err
	} else if !found {
		return fmt.Errorf("order_status: customer (%d, %d, %d) not found", w, d, cID)
	}
	var oID int
	found, err := t.queryRow(ctx, stOSOrder, []any{w, d, cID}, &oID, discard{}, discard{})
	if err != nil {
		return err
	}
	if found {
		err := t.query(ctx, stOSOrderLines, []any{w, d, oID}, func(r *sql.Rows) error {
			return r.Scan(discard{}, discard{}, discard{}, discard{}, discard{})
		})
		if err != nil {
			return err
		}
	}
	return t.commit(ctx)
}

// delivery is spec 2.7 done as BenchmarkSQL 5.0 does it: inside the
// terminal, one transaction delivering the oldest new order of each of the
// ten districts. A district without one is skipped.
func (t *terminal) delivery(ctx context.Context) error {
	w := t.warehouse()
	carrier := uniform(t.r, 1, 10)
	if err := t.begin(ctx); err != nil {
		return err
	}
	for d := 1; d <= districtsPerWarehouse; d++ {
		var oID int
		found, err := t.queryRow(ctx, stDelNewOrder, []any{w, d}, &oID)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		if _, err := t.exec(ctx, stDelNewOrderDelete, w, d, oID); err != nil {
			return err
		}
		var cID int
		if found, err := t.queryRow(ctx, stDelOrder, []any{w, d, oID}, &cID); err != nil {
			return err
		} else if !found {
			return fmt.Errorf("delivery: order (%d, %d, %d) not found", w, d, oID)
		}
		if _, err := t.exec(ctx, stDelOrderUpdate, carrier, w, d, oID); err != nil {
			return err
		}
		if _, err := t.exec(ctx, stDelOrderLineUpdate, w, d, oID); err != nil {
			return err
		}
		var sum sql.NullString
		if _, err := t.queryRow(ctx, stDelOrderLineSum, []any{w, d, oID}, &sum); err != nil {
			return err
		}
		total := sum.String
		if !sum.Valid {
			total = "0.00"
		}
		if _, err := t.exec(ctx, stDelCustomerUpdate, total, w, d, cID); err != nil {
			return err
		}
		if err := t.keepOrders(ctx, w, d, oID); err != nil {
			return err
		}
	}
	n, err := t.keepHistory(ctx)
	if err == nil {
		err = t.commit(ctx)
	}
	if err != nil {
		t.w.paymentsToTrim.Add(n) // not deleted: the next Delivery does
	}
	return err
}

// stockLevel is spec 2.8 (read-only) on the terminal's own district.
func (t *terminal) stockLevel(ctx context.Context) error {
	w := t.warehouse()
	d := t.homeD
	threshold := uniform(t.r, 10, 20)
	if err := t.begin(ctx); err != nil {
		return err
	}
	var next int
	if found, err := t.queryRow(ctx, stSLDistrict, []any{w, d}, &next); err != nil {
		return err
	} else if !found {
		return fmt.Errorf("stock_level: district (%d, %d) not found", w, d)
	}
	var low int
	if _, err := t.queryRow(ctx, stSLCount, []any{w, d, next - 20, next, threshold}, &low); err != nil {
		return err
	}
	return t.commit(ctx)
}

// parseCents parses a non-negative decimal with up to two fraction digits
// ("12.3", "7", "0.05") into cents.
func parseCents(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > 15 || len(frac) > 2 {
		return 0, fmt.Errorf("amount %q: want digits with at most 2 decimals", s)
	}
	var v int64
	for _, c := range whole {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("amount %q: want digits with at most 2 decimals", s)
		}
		v = v*10 + int64(c-'0')
	}
	fr := frac + "00"[len(frac):]
	for _, c := range fr {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("amount %q: want digits with at most 2 decimals", s)
		}
		v = v*10 + int64(c-'0')
	}
	return v, nil
}
