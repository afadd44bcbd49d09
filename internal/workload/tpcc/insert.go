package tpcc

import (
	"context"
	"database/sql"
	"strconv"
)

// Multi-row INSERTs in batches: one statement carries up to batchRows rows
// or about batchBytes of SQL, well under the servers' default
// max_allowed_packet (16 MiB in MariaDB 10.11, 64 MiB in MySQL 8.0).
const (
	batchRows  = 1000
	batchBytes = 1 << 20
)

// inserter accumulates rows of one table and sends them as one text
// statement: literal values, no placeholders, so no prepare round trip and
// no dependence on the DSN's interpolateParams.
type inserter struct {
	conn   *sql.Conn
	prefix string
	suffix string // appended after the last row (ON DUPLICATE KEY UPDATE ...)
	buf    []byte
	rows   int
	onRows func(int) // progress, may be nil
}

func newInserter(conn *sql.Conn, table, columns string, onRows func(int)) *inserter {
	return newInserterSize(conn, table, columns, onRows, batchBytes+4096)
}

func newInserterSize(conn *sql.Conn, table, columns string, onRows func(int), size int) *inserter {
	p := "INSERT INTO " + table + " (" + columns + ") VALUES "
	return &inserter{conn: conn, prefix: p, buf: make([]byte, 0, size), onRows: onRows}
}

// row starts a new row; the caller appends values with the value methods.
func (in *inserter) row() *inserter {
	if in.rows == 0 {
		in.buf = append(in.buf[:0], in.prefix...)
	} else {
		in.buf = append(in.buf, "),"...)
	}
	in.buf = append(in.buf, '(')
	in.rows++
	return in
}

func (in *inserter) sep() {
	if c := in.buf[len(in.buf)-1]; c != '(' {
		in.buf = append(in.buf, ',')
	}
}

func (in *inserter) int(v int) *inserter {
	in.sep()
	in.buf = strconv.AppendInt(in.buf, int64(v), 10)
	return in
}

// str appends a quoted literal, escaping the two characters MySQL treats
// specially in single-quoted strings.
func (in *inserter) str(s string) *inserter {
	in.sep()
	in.buf = append(in.buf, '\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\':
			in.buf = append(in.buf, '\\', c)
		default:
			in.buf = append(in.buf, c)
		}
	}
	in.buf = append(in.buf, '\'')
	return in
}

// raw appends an already formatted SQL literal (decimals, NULL).
func (in *inserter) raw(s string) *inserter {
	in.sep()
	in.buf = append(in.buf, s...)
	return in
}

// maybeFlush sends the batch when it is full.
func (in *inserter) maybeFlush(ctx context.Context) error {
	if in.rows >= batchRows || len(in.buf) >= batchBytes {
		return in.flush(ctx)
	}
	return nil
}

func (in *inserter) flush(ctx context.Context) error {
	if in.rows == 0 {
		return nil
	}
	in.buf = append(in.buf, ')')
	in.buf = append(in.buf, in.suffix...)
	if _, err := in.conn.ExecContext(ctx, string(in.buf)); err != nil {
		return err
	}
	if in.onRows != nil {
		in.onRows(in.rows)
	}
	if n, ok := ctx.Value(unitRowsKey{}).(*int); ok {
		*n += in.rows
	}
	in.rows = 0
	return nil
}

// unitRowsKey carries a load unit's count of rows reported to progress, so
// a unit that is rolled back and retried takes its rows back.
type unitRowsKey struct{}
