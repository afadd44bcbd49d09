package oltp

import (
	"context"
	"database/sql"
	"fmt"
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

type terminal struct {
	w    *Workload
	rng  *rand.Rand
	conn *sql.Conn // the connection stmts belong to
	// stmts[table-1][kind], prepared lazily on the current connection.
	stmts [][nStmts]*sql.Stmt
	res   workload.Result
	cbuf  []byte
	pbuf  []byte
	raw   sql.RawBytes
}

// NewTerminal returns one sysbench thread.
func (w *Workload) NewTerminal(id int, rng *rand.Rand) workload.Terminal {
	return &terminal{w: w, rng: rng, stmts: make([][nStmts]*sql.Stmt, w.opt.Tables),
		cbuf: make([]byte, 0, cLen), pbuf: make([]byte, 0, padLen)}
}

func (t *terminal) Next() string              { return t.w.script }
func (t *terminal) KeyingTime(string) float64 { return 0 }
func (t *terminal) ThinkTime(string) float64  { return 0 }

// stmt returns the prepared statement, re-preparing after a reconnect (the
// server forgets statements with the connection).
func (t *terminal) stmt(ctx context.Context, conn *sql.Conn, tbl, kind int) (*sql.Stmt, error) {
	if conn != t.conn {
		t.closeStmts()
		t.conn = conn
	}
	s := t.stmts[tbl-1][kind]
	if s != nil {
		return s, nil
	}
	s, err := conn.PrepareContext(ctx, fmt.Sprintf(stmtSQL[kind], table(tbl)))
	if err != nil {
		return nil, err
	}
	t.stmts[tbl-1][kind] = s
	return s, nil
}

func (t *terminal) closeStmts() {
	for i := range t.stmts {
		for k, s := range t.stmts[i] {
			if s != nil {
				s.Close()
				t.stmts[i][k] = nil
			}
		}
	}
}

func (t *terminal) tableNum() int { return 1 + t.rng.IntN(t.w.opt.Tables) }
func (t *terminal) id() int64     { return t.w.dist.Next(t.rng) }

// query runs a read and drains its rows, as sysbench stores each result.
func (t *terminal) query(ctx context.Context, s *sql.Stmt, args ...any) error {
	rows, err := s.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := rows.Scan(&t.raw); err != nil {
			rows.Close()
			return err
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	t.res.Reads++
	return rows.Close()
}

func (t *terminal) exec(ctx context.Context, s *sql.Stmt, args ...any) error {
	if _, err := s.ExecContext(ctx, args...); err != nil {
		return err
	}
	t.res.Writes++
	return nil
}

func (t *terminal) other(ctx context.Context, conn *sql.Conn, q string) error {
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return err
	}
	t.res.Other++
	return nil
}

// Run executes one sysbench event. On error it rolls back (best effort, as
// sysbench does before restarting an event) and returns the error as is.
func (t *terminal) Run(ctx context.Context, conn *sql.Conn, _ string) (workload.Result, error) {
	t.res = workload.Result{}
	err := t.event(ctx, conn)
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

func (t *terminal) event(ctx context.Context, conn *sql.Conn) error {
	o := &t.w.opt
	switch t.w.script {
	case "oltp_point_select":
		return t.pointSelects(ctx, conn)
	case "oltp_update_index":
		return t.indexUpdates(ctx, conn)
	case "oltp_update_non_index":
		return t.nonIndexUpdates(ctx, conn)
	case "oltp_delete":
		tbl := t.tableNum()
		s, err := t.stmt(ctx, conn, tbl, sDelete)
		if err != nil {
			return err
		}
		return t.exec(ctx, s, t.id())
	case "oltp_insert":
		return t.insert(ctx, conn)
	}
	if t.inTrx() {
		if err := t.other(ctx, conn, "BEGIN"); err != nil {
			return err
		}
	}
	if t.w.script != "oltp_write_only" {
		if err := t.pointSelects(ctx, conn); err != nil {
			return err
		}
		if o.RangeSelects {
			for _, g := range []struct{ kind, n int }{
				{sSimple, o.SimpleRanges}, {sSum, o.SumRanges}, {sOrder, o.OrderRanges}, {sDistinct, o.DistinctRanges},
			} {
				if err := t.ranges(ctx, conn, g.kind, g.n); err != nil {
					return err
				}
			}
		}
	}
	if t.w.script != "oltp_read_only" {
		if err := t.indexUpdates(ctx, conn); err != nil {
			return err
		}
		if err := t.nonIndexUpdates(ctx, conn); err != nil {
			return err
		}
		if err := t.deleteInserts(ctx, conn); err != nil {
			return err
		}
	}
	if t.inTrx() {
		return t.other(ctx, conn, "COMMIT")
	}
	return nil
}

// Each group below picks one table for all its statements, as sysbench's
// execute_* functions do.

func (t *terminal) pointSelects(ctx context.Context, conn *sql.Conn) error {
	s, err := t.stmt(ctx, conn, t.tableNum(), sPoint)
	if err != nil {
		return err
	}
	for range t.w.opt.PointSelects {
		if err := t.query(ctx, s, t.id()); err != nil {
			return err
		}
	}
	return nil
}

func (t *terminal) ranges(ctx context.Context, conn *sql.Conn, kind, n int) error {
	if n == 0 {
		return nil
	}
	s, err := t.stmt(ctx, conn, t.tableNum(), kind)
	if err != nil {
		return err
	}
	for range n {
		lo := t.id()
		if err := t.query(ctx, s, lo, lo+t.w.opt.RangeSize-1); err != nil {
			return err
		}
	}
	return nil
}

func (t *terminal) indexUpdates(ctx context.Context, conn *sql.Conn) error {
	if t.w.opt.IndexUpdates == 0 {
		return nil
	}
	s, err := t.stmt(ctx, conn, t.tableNum(), sIndexUpd)
	if err != nil {
		return err
	}
	for range t.w.opt.IndexUpdates {
		if err := t.exec(ctx, s, t.id()); err != nil {
			return err
		}
	}
	return nil
}

func (t *terminal) nonIndexUpdates(ctx context.Context, conn *sql.Conn) error {
	if t.w.opt.NonIndexUpdates == 0 {
		return nil
	}
	s, err := t.stmt(ctx, conn, t.tableNum(), sNonIndexUpd)
	if err != nil {
		return err
	}
	for range t.w.opt.NonIndexUpdates {
		t.cbuf = appendC(t.cbuf[:0], t.rng)
		if err := t.exec(ctx, s, t.cbuf, t.id()); err != nil {
			return err
		}
	}
	return nil
}

func (t *terminal) deleteInserts(ctx context.Context, conn *sql.Conn) error {
	if t.w.opt.DeleteInserts == 0 {
		return nil
	}
	tbl := t.tableNum()
	del, err := t.stmt(ctx, conn, tbl, sDelete)
	if err != nil {
		return err
	}
	ins, err := t.stmt(ctx, conn, tbl, sInsert)
	if err != nil {
		return err
	}
	for range t.w.opt.DeleteInserts {
		id := t.id()
		if err := t.exec(ctx, del, id); err != nil {
			return err
		}
		t.cbuf = appendC(t.cbuf[:0], t.rng)
		t.pbuf = appendPad(t.pbuf[:0], t.rng)
		if err := t.exec(ctx, ins, id, t.id(), t.cbuf, t.pbuf); err != nil {
			return err
		}
	}
	return nil
}

// insert is oltp_insert: with auto_inc the server assigns the id (0 asks
// AUTO_INCREMENT for one); without it ids come from a random draw above the
// loaded range, like sysbench's rand.unique.
func (t *terminal) insert(ctx context.Context, conn *sql.Conn) error {
	s, err := t.stmt(ctx, conn, t.tableNum(), sInsert)
	if err != nil {
		return err
	}
	var id int64
	if !t.w.opt.AutoInc {
		id = t.w.opt.TableSize + 1 + t.rng.Int64N(1<<31-1-t.w.opt.TableSize)
	}
	t.cbuf = appendC(t.cbuf[:0], t.rng)
	t.pbuf = appendPad(t.pbuf[:0], t.rng)
	return t.exec(ctx, s, id, t.id(), t.cbuf, t.pbuf)
}
