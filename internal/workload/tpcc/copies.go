package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/walab/walab/internal/workload"
)

// Copies is sysbench-tpcc's --tables=N: N independent TPC-C schemas in
// one database (tables suffixed 1..N, see tableNames), each holding the
// warehouses asked for. prepare loads, check checks and cleanup drops
// every copy; in a run each transaction picks its copy uniformly, as
// tpcc_run.lua draws table_num = uniform(1, tables) per transaction.
type Copies struct {
	copies []*Workload
}

var (
	_ workload.SQL            = (*Copies)(nil)
	_ workload.SQLInitializer = (*Copies)(nil)
)

// MaxCopies bounds --tables (sysbench-tpcc takes any; seed 002 asks 100).
const MaxCopies = 1000

// NewCopies is n copies of the workload opts describes. A seed makes each
// copy's data reproducible and different from the others'.
func NewCopies(opts Options, n int) (*Copies, error) {
	if n < 1 || n > MaxCopies {
		return nil, fmt.Errorf("tables=%d: want 1..%d copies of the schema", n, MaxCopies)
	}
	c := &Copies{}
	for k := 1; k <= n; k++ {
		o := opts
		if o.Seed != 0 {
			o.Seed += uint64(k-1) << 32
		}
		w, err := New(o)
		if err != nil {
			return nil, err
		}
		w.names = copyNames(k)
		c.copies = append(c.copies, w)
	}
	return c, nil
}

// Name is the workload label.
func (c *Copies) Name() string { return "tpcc" }

// TxTypes lists the five transaction labels.
func (c *Copies) TxTypes() []string { return c.copies[0].TxTypes() }

// Prepare loads each copy in turn; progress counts over all of them.
func (c *Copies) Prepare(ctx context.Context, db *sql.DB, popts workload.PrepareOptions) error {
	var before int64
	for k, w := range c.copies {
		o := popts
		if p := popts.Progress; p != nil {
			left := int64(len(c.copies) - k - 1)
			o.Progress = func(e workload.ProgressEvent) {
				p(workload.ProgressEvent{Rows: before + e.Rows, TotalRows: before + e.TotalRows*(1+left), Unit: e.Unit})
			}
		}
		var last int64
		if o.Progress != nil {
			inner := o.Progress
			o.Progress = func(e workload.ProgressEvent) { last = e.Rows; inner(e) }
		}
		if err := w.Prepare(ctx, db, o); err != nil {
			return fmt.Errorf("copy %d of %d (%s): %w", k+1, len(c.copies), w.names.sql("bmsql_*"), err)
		}
		before += last
	}
	return nil
}

// Check runs the consistency conditions on every copy; each result names
// its copy.
func (c *Copies) Check(ctx context.Context, db *sql.DB) ([]workload.CheckResult, error) {
	var out []workload.CheckResult
	for k, w := range c.copies {
		res, err := w.Check(ctx, db)
		for _, r := range res {
			r.Name = fmt.Sprintf("copy %d: %s", k+1, r.Name)
			out = append(out, r)
		}
		if err != nil {
			return out, fmt.Errorf("copy %d: %w", k+1, err)
		}
	}
	return out, nil
}

// Cleanup drops every copy's tables: those in the database, whatever
// their number (dropEvery), not the --tables asked.
func (c *Copies) Cleanup(ctx context.Context, db *sql.DB) error {
	if err := dropEvery(ctx, db); err != nil {
		return err
	}
	for _, w := range c.copies {
		w.forget()
	}
	return nil
}

// Init reads every copy's bmsql_config.
func (c *Copies) Init(ctx context.Context, db *sql.DB) error {
	for k, w := range c.copies {
		if err := w.Init(ctx, db); err != nil {
			return fmt.Errorf("copy %d: %w", k+1, err)
		}
	}
	return nil
}

// openCopies bounds the copies whose statements a terminal keeps prepared
// on its connection: MySQL's max_prepared_stmt_count (16,382 by default)
// is server-wide, and 128 terminals x 100 copies x 30 statements would
// need 384,000. A terminal switching to a copy beyond these closes the
// statements of the one it used least recently.
const openCopies = 2

// NewTerminal is a terminal that runs each transaction on a copy drawn
// uniformly.
func (c *Copies) NewTerminal(id int, r *rand.Rand) workload.SQLTerminal {
	t := &copiesTerminal{r: r}
	for _, w := range c.copies {
		t.inner = append(t.inner, w.NewTerminal(id, r).(*terminal))
	}
	return t
}

type copiesTerminal struct {
	r     *rand.Rand
	inner []*terminal
	cur   int
	used  []int // copies with prepared statements, least recently used first
}

// Next draws the copy, then the transaction from that copy's deck.
func (t *copiesTerminal) Next() string {
	t.cur = t.r.IntN(len(t.inner))
	return t.inner[t.cur].Next()
}

func (t *copiesTerminal) KeyingTime(tx string) float64 { return t.inner[t.cur].KeyingTime(tx) }
func (t *copiesTerminal) ThinkTime(tx string) float64  { return t.inner[t.cur].ThinkTime(tx) }

// Run runs tx on the copy Next drew.
func (t *copiesTerminal) Run(ctx context.Context, conn *sql.Conn, tx string) (workload.Result, error) {
	if i := slices.Index(t.used, t.cur); i >= 0 {
		t.used = slices.Delete(t.used, i, i+1)
	} else if len(t.used) >= openCopies {
		t.inner[t.used[0]].resetStatements()
		t.used = t.used[1:]
	}
	t.used = append(t.used, t.cur)
	return t.inner[t.cur].Run(ctx, conn, tx)
}

// Close closes every copy's terminal.
func (t *copiesTerminal) Close() error {
	var first error
	for _, in := range t.inner {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
