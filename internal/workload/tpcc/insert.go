package tpcc

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/go-sql-driver/mysql"
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
//
// In bulk mode (newBulkInserter) the rows are tab-separated lines sent with
// LOAD DATA LOCAL INFILE from memory instead: the server parses no SQL per
// row, which loads TPC-C's tables faster than multi-row INSERTs
// (docs/loadgen.md). LOAD DATA LOCAL skips a duplicate row with a warning
// where INSERT fails, so a batch whose affected rows differ from the rows
// sent is an error here.
type inserter struct {
	conn   *sql.Conn
	prefix string
	suffix string // appended after the last row (ON DUPLICATE KEY UPDATE ...)
	buf    []byte
	rows   int
	onRows func(int) // progress, may be nil

	// bulk mode
	bulk          bool
	table, cols   string
	firstInRow    bool
	reader        string // the Reader:: handler name
	loadStatement string
}

func newInserter(conn *sql.Conn, table, columns string, onRows func(int)) *inserter {
	return newInserterSize(conn, table, columns, onRows, batchBytes+4096)
}

func newInserterSize(conn *sql.Conn, table, columns string, onRows func(int), size int) *inserter {
	p := "INSERT INTO " + table + " (" + columns + ") VALUES "
	return &inserter{conn: conn, prefix: p, buf: make([]byte, 0, size), onRows: onRows}
}

// newBulkInserter is an inserter in bulk mode (LOAD DATA LOCAL INFILE).
func newBulkInserter(conn *sql.Conn, table, columns string, onRows func(int)) *inserter {
	in := &inserter{conn: conn, buf: make([]byte, 0, batchBytes+4096), onRows: onRows, bulk: true, table: table, cols: columns}
	in.reader = fmt.Sprintf("walab-tpcc-%p", in)
	in.loadStatement = "LOAD DATA LOCAL INFILE 'Reader::" + in.reader + "' INTO TABLE " + table + " (" + columns + ")"
	return in
}

// row starts a new row; the caller appends values with the value methods.
func (in *inserter) row() *inserter {
	if in.bulk {
		if in.rows == 0 {
			in.buf = in.buf[:0]
		} else {
			in.buf = append(in.buf, '\n')
		}
		in.firstInRow = true
		in.rows++
		return in
	}
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
	if in.bulk {
		if !in.firstInRow {
			in.buf = append(in.buf, '\t')
		}
		in.firstInRow = false
		return
	}
	if c := in.buf[len(in.buf)-1]; c != '(' {
		in.buf = append(in.buf, ',')
	}
}

func (in *inserter) int(v int) *inserter {
	in.sep()
	in.buf = strconv.AppendInt(in.buf, int64(v), 10)
	return in
}

// astr, nstr, zip and data append a generated a-string, n-string, zip or
// I_DATA/S_DATA value straight into the batch: their characters need no
// escaping, and no string is made for them.
func (in *inserter) astr(r *rand.Rand, lo, hi int) *inserter {
	in.open()
	in.buf = appendAString(in.buf, r, lo, hi)
	return in.close()
}

func (in *inserter) nstr(r *rand.Rand, lo, hi int) *inserter {
	in.open()
	in.buf = appendNString(in.buf, r, lo, hi)
	return in.close()
}

func (in *inserter) zip(r *rand.Rand) *inserter {
	in.open()
	in.buf = appendZip(in.buf, r)
	return in.close()
}

func (in *inserter) data(r *rand.Rand) *inserter {
	in.open()
	in.buf = appendData(in.buf, r)
	return in.close()
}

// open and close surround a value that needs no escaping.
func (in *inserter) open() {
	in.sep()
	if !in.bulk {
		in.buf = append(in.buf, '\'')
	}
}

func (in *inserter) close() *inserter {
	if !in.bulk {
		in.buf = append(in.buf, '\'')
	}
	return in
}

// str appends a quoted literal, escaping the two characters MySQL treats
// specially in single-quoted strings (in bulk mode: a field escaped for
// LOAD DATA's defaults, backslash, tab, newline and NUL).
func (in *inserter) str(s string) *inserter {
	in.sep()
	if in.bulk {
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '\\':
				in.buf = append(in.buf, '\\', '\\')
			case '\t':
				in.buf = append(in.buf, '\\', 't')
			case '\n':
				in.buf = append(in.buf, '\\', 'n')
			case 0:
				in.buf = append(in.buf, '\\', '0')
			default:
				in.buf = append(in.buf, c)
			}
		}
		return in
	}
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
	if in.bulk && s == "NULL" {
		s = `\N`
	}
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
	if in.bulk {
		if err := in.load(ctx); err != nil {
			return err
		}
	} else {
		in.buf = append(in.buf, ')')
		in.buf = append(in.buf, in.suffix...)
		if _, err := in.conn.ExecContext(ctx, string(in.buf)); err != nil {
			return err
		}
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

// load sends the batch with LOAD DATA LOCAL INFILE from memory.
func (in *inserter) load(ctx context.Context) error {
	mysql.RegisterReaderHandler(in.reader, func() io.Reader { return bytes.NewReader(in.buf) })
	defer mysql.DeregisterReaderHandler(in.reader)
	res, err := in.conn.ExecContext(ctx, in.loadStatement)
	if err != nil {
		return fmt.Errorf("load %d rows into %s: %w", in.rows, in.table, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("load into %s: %w", in.table, err)
	}
	if n != int64(in.rows) {
		return fmt.Errorf("load into %s stored %d of %d rows (LOAD DATA LOCAL skips a duplicate key with a warning)", in.table, n, in.rows)
	}
	return nil
}

// unitRowsKey carries a load unit's count of rows reported to progress, so
// a unit that is rolled back and retried takes its rows back.
type unitRowsKey struct{}
