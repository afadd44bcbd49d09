package oltp

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/walab/walab/internal/workload"
)

// Statement kinds, one prepared statement each per table and connection.
const (
	sPoint = iota
	sSimple
	sSum
	sOrder
	sDistinct
	sIndexUpd
	sNonIndexUpd
	sDelete
	sInsert
	nStmts
)

var stmtSQL = [nStmts]string{
	sPoint:       "SELECT c FROM %s WHERE id=?",
	sSimple:      "SELECT c FROM %s WHERE id BETWEEN ? AND ?",
	sSum:         "SELECT SUM(k) FROM %s WHERE id BETWEEN ? AND ?",
	sOrder:       "SELECT c FROM %s WHERE id BETWEEN ? AND ? ORDER BY c",
	sDistinct:    "SELECT DISTINCT c FROM %s WHERE id BETWEEN ? AND ? ORDER BY c",
	sIndexUpd:    "UPDATE %s SET k=k+1 WHERE id=?",
	sNonIndexUpd: "UPDATE %s SET c=? WHERE id=?",
	sDelete:      "DELETE FROM %s WHERE id=?",
	sInsert:      "INSERT INTO %s (id, k, c, pad) VALUES (?, ?, ?, ?)",
}

// The terminal talks to go-sql-driver's connection directly (sql.Conn.Raw)
// rather than through database/sql's Stmt and Rows: those cost about 17
// allocations, several mutexes and a dependency map update per statement,
// which showed as client CPU next to sysbench. The connection is still the
// runner's *sql.Conn; a driver.ErrBadConn returned from Raw makes
// database/sql drop it, as a failed query through database/sql would.

// rawConn is what the terminal needs from the driver connection.
type rawConn interface {
	driver.ConnPrepareContext
	driver.ExecerContext
}

// rawStmt is a driver statement that runs with a context.
type rawStmt interface {
	driver.Stmt
	driver.StmtQueryContext
	driver.StmtExecContext
}

// maxArgs is the most placeholders a statement has (the INSERT).
const maxArgs = 4

type terminal struct {
	w    *Workload
	rng  *rand.Rand
	conn *sql.Conn // the connection stmts belong to
	// stmts[table-1][kind], prepared lazily on the current connection.
	stmts [][nStmts]rawStmt
	res   workload.Result
	cbuf  []byte
	pbuf  []byte
	// Per-terminal scratch reused by every statement: arguments, one row
	// (every SELECT here returns one column), the event's context and
	// driver connection while inside Raw.
	args    [maxArgs]driver.NamedValue
	dest    [1]driver.Value
	ctx     context.Context
	dc      rawConn
	eventFn func(any) error // t.rawEvent, bound once
}

// NewTerminal returns one sysbench thread.
func (w *Workload) NewTerminal(id int, rng *rand.Rand) workload.SQLTerminal {
	t := &terminal{w: w, rng: rng, stmts: make([][nStmts]rawStmt, w.opt.Tables),
		cbuf: make([]byte, 0, cLen), pbuf: make([]byte, 0, padLen)}
	for i := range t.args {
		t.args[i].Ordinal = i + 1
	}
	t.eventFn = t.rawEvent
	return t
}

func (t *terminal) Next() string              { return t.w.script }
func (t *terminal) KeyingTime(string) float64 { return 0 }
func (t *terminal) ThinkTime(string) float64  { return 0 }

// stmt returns the prepared statement, preparing it on first use on the
// current connection (the server forgets statements with the connection).
func (t *terminal) stmt(tbl, kind int) (rawStmt, error) {
	s := t.stmts[tbl-1][kind]
	if s != nil {
		return s, nil
	}
	ds, err := t.dc.PrepareContext(t.ctx, fmt.Sprintf(stmtSQL[kind], table(tbl)))
	if err != nil {
		return nil, err
	}
	s, ok := ds.(rawStmt)
	if !ok {
		ds.Close()
		return nil, fmt.Errorf("oltp: driver statement %T lacks QueryContext/ExecContext", ds)
	}
	t.stmts[tbl-1][kind] = s
	return s, nil
}

// closeStmts forgets the statements of the previous connection. Closing one
// whose connection is gone returns an error without any I/O.
func (t *terminal) closeStmts() {
	for i := range t.stmts {
		for k, s := range t.stmts[i] {
			if s != nil {
				_ = s.Close()
				t.stmts[i][k] = nil
			}
		}
	}
}

func (t *terminal) tableNum() int { return 1 + t.rng.IntN(t.w.opt.Tables) }
func (t *terminal) id() int64     { return t.w.dist.Next(t.rng) }

// query runs a read with the first n of t.args and drains its rows, as
// sysbench stores each result.
func (t *terminal) query(s rawStmt, n int) error {
	rows, err := s.QueryContext(t.ctx, t.args[:n])
	if err != nil {
		return err
	}
	for {
		err := rows.Next(t.dest[:])
		if err == io.EOF {
			break
		}
		if err != nil {
			rows.Close()
			return err
		}
	}
	t.res.Reads++
	return rows.Close()
}

// exec runs a write with the first n of t.args.
func (t *terminal) exec(s rawStmt, n int) error {
	if _, err := s.ExecContext(t.ctx, t.args[:n]); err != nil {
		return err
	}
	t.res.Writes++
	return nil
}

func (t *terminal) other(q string) error {
	if _, err := t.dc.ExecContext(t.ctx, q, nil); err != nil {
		return err
	}
	t.res.Other++
	return nil
}

// arg sets placeholder i (0-based) for the next statement.
func (t *terminal) arg(i int, v driver.Value) { t.args[i].Value = v }

// Run executes one sysbench event. On error it rolls back (best effort, as
// sysbench does before restarting an event) and returns the error as is.
func (t *terminal) Run(ctx context.Context, conn *sql.Conn, _ string) (workload.Result, error) {
	t.res = workload.Result{}
	if conn != t.conn {
		t.closeStmts()
		t.conn = conn
	}
	t.ctx = ctx
	err := conn.Raw(t.eventFn)
	t.ctx, t.dc = nil, nil
	if err != nil && t.inTrx() {
		if _, rerr := conn.ExecContext(ctx, "ROLLBACK"); rerr == nil {
			t.res.Other++
		}
	}
	return t.res, err
}

func (t *terminal) inTrx() bool {
	switch t.w.script {
	case "oltp_read_write", "oltp_read_only", "oltp_write_only":
		return !t.w.opt.SkipTrx
	}
	return false
}

// rawEvent runs the event on the driver connection, inside sql.Conn.Raw.
func (t *terminal) rawEvent(dc any) error {
	c, ok := dc.(rawConn)
	if !ok {
		return fmt.Errorf("oltp: driver connection %T lacks PrepareContext/ExecContext", dc)
	}
	t.dc = c
	return t.event()
}

func (t *terminal) event() error {
	o := &t.w.opt
	switch t.w.script {
	case "oltp_point_select":
		return t.pointSelects()
	case "oltp_update_index":
		return t.indexUpdates()
	case "oltp_update_non_index":
		return t.nonIndexUpdates()
	case "oltp_delete":
		s, err := t.stmt(t.tableNum(), sDelete)
		if err != nil {
			return err
		}
		t.arg(0, t.id())
		return t.exec(s, 1)
	case "oltp_insert":
		return t.insert()
	}
	if t.inTrx() {
		if err := t.other("BEGIN"); err != nil {
			return err
		}
	}
	if t.w.script != "oltp_write_only" {
		if err := t.pointSelects(); err != nil {
			return err
		}
		if o.RangeSelects {
			for _, g := range [...]struct{ kind, n int }{
				{sSimple, o.SimpleRanges}, {sSum, o.SumRanges}, {sOrder, o.OrderRanges}, {sDistinct, o.DistinctRanges},
			} {
				if err := t.ranges(g.kind, g.n); err != nil {
					return err
				}
			}
		}
	}
	if t.w.script != "oltp_read_only" {
		if err := t.indexUpdates(); err != nil {
			return err
		}
		if err := t.nonIndexUpdates(); err != nil {
			return err
		}
		if err := t.deleteInserts(); err != nil {
			return err
		}
	}
	if t.inTrx() {
		return t.other("COMMIT")
	}
	return nil
}

// Each group below picks one table for all its statements, as sysbench's
// execute_* functions do.

func (t *terminal) pointSelects() error {
	s, err := t.stmt(t.tableNum(), sPoint)
	if err != nil {
		return err
	}
	for range t.w.opt.PointSelects {
		t.arg(0, t.id())
		if err := t.query(s, 1); err != nil {
			return err
		}
	}
	return nil
}

// repeat runs one statement n times on one randomly chosen table; n == 0
// draws nothing, so the random streams match sysbench's skipped groups.
func (t *terminal) repeat(n, kind int, one func(s rawStmt) error) error {
	if n == 0 {
		return nil
	}
	s, err := t.stmt(t.tableNum(), kind)
	if err != nil {
		return err
	}
	for range n {
		if err := one(s); err != nil {
			return err
		}
	}
	return nil
}

func (t *terminal) ranges(kind, n int) error {
	return t.repeat(n, kind, func(s rawStmt) error {
		lo := t.id()
		t.arg(0, lo)
		t.arg(1, lo+t.w.opt.RangeSize-1)
		return t.query(s, 2)
	})
}

func (t *terminal) indexUpdates() error {
	return t.repeat(t.w.opt.IndexUpdates, sIndexUpd, func(s rawStmt) error {
		t.arg(0, t.id())
		return t.exec(s, 1)
	})
}

func (t *terminal) nonIndexUpdates() error {
	return t.repeat(t.w.opt.NonIndexUpdates, sNonIndexUpd, func(s rawStmt) error {
		t.cbuf = appendC(t.cbuf[:0], t.rng)
		t.arg(0, t.cbuf)
		t.arg(1, t.id())
		return t.exec(s, 2)
	})
}

func (t *terminal) deleteInserts() error {
	if t.w.opt.DeleteInserts == 0 {
		return nil
	}
	tbl := t.tableNum()
	del, err := t.stmt(tbl, sDelete)
	if err != nil {
		return err
	}
	ins, err := t.stmt(tbl, sInsert)
	if err != nil {
		return err
	}
	for range t.w.opt.DeleteInserts {
		id := t.id()
		t.arg(0, id)
		if err := t.exec(del, 1); err != nil {
			return err
		}
		if err := t.insertRow(ins, id); err != nil {
			return err
		}
	}
	return nil
}

// insert is oltp_insert: with auto_inc the server assigns the id (0 asks
// AUTO_INCREMENT for one); without it ids come from a random draw above the
// loaded range, like sysbench's rand.unique.
func (t *terminal) insert() error {
	s, err := t.stmt(t.tableNum(), sInsert)
	if err != nil {
		return err
	}
	var id int64
	if !t.w.opt.AutoInc {
		id = t.w.opt.TableSize + 1 + t.rng.Int64N(1<<31-1-t.w.opt.TableSize)
	}
	return t.insertRow(s, id)
}

// insertRow runs the insert statement s for a row id with a random k, c
// and pad, as sysbench's inserts fill them.
func (t *terminal) insertRow(s rawStmt, id int64) error {
	t.cbuf = appendC(t.cbuf[:0], t.rng)
	t.pbuf = appendPad(t.pbuf[:0], t.rng)
	t.arg(0, id)
	t.arg(1, t.id())
	t.arg(2, t.cbuf)
	t.arg(3, t.pbuf)
	return t.exec(s, 4)
}
