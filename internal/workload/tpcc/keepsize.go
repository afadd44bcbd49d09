package tpcc

import "context"

// Options.KeepSize: a run whose database keeps its size. TPC-C's database
// grows by design (each New-Order adds an order and its 5-15 order lines,
// each Payment a history row; the spec sizes the storage for that growth),
// so on a drive sized to the data the fill, and with it the drive's write
// amplification, climbs for as long as the run lasts. With KeepSize each
// Delivery also deletes, before it commits, the oldest rows the run added
// since the last one: the order tables hold the load's number of
// orders per district, the history table the rows it held when the run
// started, and InnoDB reuses the freed pages
// for the new rows, so the files stop growing. Only delivered orders are
// deleted (a Delivery still finds every undelivered one); the conditions
// of clause 3.3.2 on the sums of deleted rows no longer hold, and Check
// says so (keptSizeConditions).

// keepOrders deletes district (w, d)'s orders, with their order lines,
// older than the newest scale.Customers (3000 at full scale, the load's
// orders per district) and older than oID, the order this Delivery just
// delivered: every order before it is delivered.
func (t *terminal) keepOrders(ctx context.Context, w, d, oID int) error {
	if !t.w.opts.KeepSize {
		return nil
	}
	var next int
	if _, err := t.queryRow(ctx, stKeepNextOrder, []any{w, d}, &next); err != nil {
		return err
	}
	bound := min(oID, next-t.st.scale.Customers)
	if bound <= 1 {
		return nil
	}
	if _, err := t.exec(ctx, stKeepOrderLineDelete, w, d, bound); err != nil {
		return err
	}
	_, err := t.exec(ctx, stKeepOrderDelete, w, d, bound)
	return err
}

// keepHistory deletes as many of the oldest payments (history rows) as
// this workload's Payments committed since the last Delivery did, and
// returns how many it claimed: the caller gives them back if the Delivery
// does not commit. Counting commits, not ids: the load's AUTO_INCREMENT
// ids have gaps, and finding the newest N rows by id would read N rows.
func (t *terminal) keepHistory(ctx context.Context) (int64, error) {
	if !t.w.opts.KeepSize {
		return 0, nil
	}
	n := t.w.paymentsToTrim.Swap(0)
	if n == 0 {
		return 0, nil
	}
	_, err := t.exec(ctx, stKeepHistoryDelete, n)
	return n, err
}

// commitPayment commits a Payment and, with KeepSize, counts its history
// row for the next Delivery to delete.
func (t *terminal) commitPayment(ctx context.Context) error {
	if err := t.commit(ctx); err != nil {
		return err
	}
	if t.w.opts.KeepSize {
		t.w.paymentsToTrim.Add(1)
	}
	return nil
}

// keptSizeConditions are the consistency conditions that sum over rows a
// KeepSize run deletes (payments, delivered order lines): after such a
// run Check reports them as not applicable.
var keptSizeConditions = []string{"3.3.2.8 ", "3.3.2.9 ", "3.3.2.10 ", "3.3.2.12 "}
