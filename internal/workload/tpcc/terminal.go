package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/walab/walab/internal/workload"
)

// deckSize: the mix is dealt from a shuffled deck of 100 cards with exactly
// weight cards per type (spec 5.2.4.2 allows any deck of at least 23), so
// every 100 transactions of a terminal honour the configured percentages.
const deckSize = 100

// Spec 5.2.5: keying times (constant) and mean think times, seconds.
var (
	keyingSeconds = map[string]float64{TxNewOrder: 18, TxPayment: 3, TxOrderStatus: 2, TxDelivery: 2, TxStockLevel: 2}
	thinkSeconds  = map[string]float64{TxNewOrder: 12, TxPayment: 12, TxOrderStatus: 10, TxDelivery: 5, TxStockLevel: 5}
)

// terminal is one client of the workload; see workload.SQLTerminal.
type terminal struct {
	w  *Workload
	id int
	r  *rand.Rand

	deck []uint8
	pos  int

	st           *runState
	homeW, homeD int // fixed home (homeW 0 when warehouses are random per transaction)

	conn   *sql.Conn
	manual bool // autocommit is off on conn (see begin)
	stmts  [numStmts]*sql.Stmt
	res    workload.Result
}

// NewTerminal returns terminal id. Its home warehouse and district are fixed
// when the run state is known (first Run): warehouse id%W+1, district
// (id/W)%10+1, so the first 10*W terminals get distinct (W, D) pairs as in
// BenchmarkSQL.
func (w *Workload) NewTerminal(id int, r *rand.Rand) workload.SQLTerminal {
	return &terminal{w: w, id: id, r: r, deck: newDeck(w.opts.Weights), pos: deckSize}
}

// newDeck holds each card as its index in txTypes (a byte, not a 16-byte
// string header: 100 B per terminal instead of 1.6 KiB).
func newDeck(wt Weights) []uint8 {
	deck := make([]uint8, 0, deckSize)
	for i, tx := range txTypes {
		for range wt.of(tx) {
			deck = append(deck, uint8(i))
		}
	}
	return deck
}

// of is the weight of transaction type tx.
func (wt Weights) of(tx string) int {
	switch tx {
	case TxNewOrder:
		return wt.NewOrder
	case TxPayment:
		return wt.Payment
	case TxOrderStatus:
		return wt.OrderStatus
	case TxDelivery:
		return wt.Delivery
	case TxStockLevel:
		return wt.StockLevel
	}
	panic("tpcc: no weight for transaction type " + tx)
}

// Next deals the next card, reshuffling the deck when it is used up.
func (t *terminal) Next() string {
	if t.pos >= len(t.deck) {
		t.r.Shuffle(len(t.deck), func(i, j int) { t.deck[i], t.deck[j] = t.deck[j], t.deck[i] })
		t.pos = 0
	}
	tx := txTypes[t.deck[t.pos]]
	t.pos++
	return tx
}

// KeyingTime is the spec's constant keying time when enabled.
func (t *terminal) KeyingTime(tx string) float64 {
	if !t.w.opts.KeyingTimes {
		return 0
	}
	return keyingSeconds[tx] * t.w.opts.KeyingTimeMultiplier
}

// ThinkTime is -ln(r) * mean, truncated at 10 * mean (spec 5.2.5.4).
func (t *terminal) ThinkTime(tx string) float64 {
	if !t.w.opts.ThinkTimes {
		return 0
	}
	mean := thinkSeconds[tx]
	v := -math.Log(1-t.r.Float64()) * mean // 1-Float64 is in (0, 1]
	return min(v, 10*mean) * t.w.opts.ThinkTimeMultiplier
}

// Run executes one transaction on conn.
func (t *terminal) Run(ctx context.Context, conn *sql.Conn, tx string) (workload.Result, error) {
	if t.st == nil {
		st, err := t.w.ensureState(ctx, conn)
		if err != nil {
			return workload.Result{}, err
		}
		t.st = st
		if t.w.opts.TerminalWarehouseFixed {
			t.homeW = t.id%st.warehouses + 1
		}
		t.homeD = (t.id/st.warehouses)%districtsPerWarehouse + 1
	}
	if conn != t.conn {
		t.resetStatements()
		t.conn, t.manual = conn, false
	}
	t.res = workload.Result{}
	var err error
	outcome := workload.Committed
	switch tx {
	case TxNewOrder:
		outcome, err = t.newOrder(ctx)
	case TxPayment:
		err = t.payment(ctx)
	case TxOrderStatus:
		err = t.orderStatus(ctx)
	case TxDelivery:
		err = t.delivery(ctx)
	case TxStockLevel:
		err = t.stockLevel(ctx)
	default:
		return workload.Result{}, fmt.Errorf("tpcc: unknown transaction type %q", tx)
	}
	if err != nil {
		t.rollback()
		return t.res, err
	}
	t.res.Outcome = outcome
	return t.res, nil
}

// Close releases the terminal's prepared statements and turns autocommit
// back on, so the connection goes back to its pool as it came. Runners that
// know about io.Closer call it when the terminal ends, before closing the
// connection; an error means the connection is not to be reused.
func (t *terminal) Close() error {
	t.resetStatements()
	var err error
	if t.conn != nil && t.manual {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err = t.conn.ExecContext(ctx, "SET autocommit=1"); err != nil {
			err = fmt.Errorf("tpcc: terminal %d: SET autocommit=1: %w", t.id, err)
		}
	}
	t.conn, t.manual = nil, false
	return err
}

func (t *terminal) resetStatements() {
	for i, s := range t.stmts {
		if s != nil {
			s.Close() // the conn may be gone already; nothing to do about it
			t.stmts[i] = nil
		}
	}
}

// stmt returns statement id prepared on the current connection. Prepared
// statements are what BenchmarkSQL uses (useServerPrepStmts=true in seed
// 000): one round trip per execution whatever the DSN's interpolateParams.
func (t *terminal) stmt(ctx context.Context, id stmtID) (*sql.Stmt, error) {
	if s := t.stmts[id]; s != nil {
		return s, nil
	}
	s, err := t.conn.PrepareContext(ctx, t.w.names.sql(statements[id].sql))
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", statements[id].name, err)
	}
	t.stmts[id] = s
	return s, nil
}

func (t *terminal) count(id stmtID) {
	switch statements[id].kind {
	case kindRead:
		t.res.Reads++
	case kindWrite:
		t.res.Writes++
	}
}

// exec runs a write and returns the rows affected.
func (t *terminal) exec(ctx context.Context, id stmtID, args ...any) (int64, error) {
	s, err := t.stmt(ctx, id)
	if err != nil {
		return 0, err
	}
	t.count(id)
	res, err := s.ExecContext(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", statements[id].name, err)
	}
	return res.RowsAffected()
}

// queryRow runs a single-row read; found is false when there is no row.
func (t *terminal) queryRow(ctx context.Context, id stmtID, args []any, dest ...any) (found bool, err error) {
	s, err := t.stmt(ctx, id)
	if err != nil {
		return false, err
	}
	t.count(id)
	err = s.QueryRowContext(ctx, args...).Scan(dest...)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", statements[id].name, err)
	}
	return true, nil
}

// query runs a multi-row read, calling each for every row.
func (t *terminal) query(ctx context.Context, id stmtID, args []any, each func(*sql.Rows) error) error {
	s, err := t.stmt(ctx, id)
	if err != nil {
		return err
	}
	t.count(id)
	rows, err := s.QueryContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", statements[id].name, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", statements[id].name, err)
	}
	return nil
}

// control sends SET autocommit=0, COMMIT or ROLLBACK as plain text: the
// transaction is managed by hand so the terminal's prepared statements can
// run inside it (a database/sql Tx would re-prepare them on every use).
func (t *terminal) control(ctx context.Context, q string) error {
	t.res.Other++
	if _, err := t.conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// begin starts a transaction as BenchmarkSQL does through JDBC's
// setAutoCommit(false): autocommit goes off once per connection, and the
// server then opens a transaction at each one's first statement, so a
// transaction costs no START TRANSACTION round trip. Close turns it back on.
func (t *terminal) begin(ctx context.Context) error {
	if t.manual {
		return nil
	}
	if err := t.control(ctx, "SET autocommit=0"); err != nil {
		return err
	}
	t.manual = true
	return nil
}

func (t *terminal) commit(ctx context.Context) error { return t.control(ctx, "COMMIT") }

// rollback ends a failed transaction. It gets its own short deadline: the
// caller's context may be the reason the transaction failed.
func (t *terminal) rollback() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t.res.Other++
	t.conn.ExecContext(ctx, "ROLLBACK") // a dead connection is the runner's to replace
}

// warehouse picks the home warehouse of a transaction.
func (t *terminal) warehouse() int {
	if t.homeW != 0 {
		return t.homeW
	}
	return uniform(t.r, 1, t.st.warehouses)
}

// otherWarehouse picks a warehouse other than w (W > 1).
func (t *terminal) otherWarehouse(w int) int {
	o := uniform(t.r, 1, t.st.warehouses-1)
	if o >= w {
		o++
	}
	return o
}

// customerID is NURand(1023, 1, customers) with C-Run.
func (t *terminal) customerID() int {
	return NURand(t.r, aCID, t.st.run.CID, 1, t.st.scale.Customers)
}

// lastName is a C_LAST drawn with NURand(255, 0, 999) and C-Run, limited to
// the names present when a test shrinks the customer count below 1000.
func (t *terminal) lastName() string {
	hi := min(999, t.st.scale.Customers-1)
	return LastName(NURand(t.r, aCLast, t.st.run.CLast, 0, hi))
}

// discard is a Scan destination for columns a profile reads but does not use.
type discard struct{}

func (discard) Scan(any) error { return nil }
