package tpcc

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// TestBulkInserterMatchesInsert: the same rows sent with LOAD DATA LOCAL
// (bulk mode) and with a multi-row INSERT read back identically, including
// the characters LOAD DATA's format escapes (backslash, tab, newline, NUL),
// a quote, NULL and decimals; across a flush at the batch size.
func TestBulkInserterMatchesInsert(t *testing.T) {
	db, _ := testenv.MariaDB(t, "walab_test_tpcc_bulk")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	for _, tbl := range []string{"t_insert", "t_bulk"} {
		_, err := conn.ExecContext(ctx, "DROP TABLE IF EXISTS "+tbl)
		require.NoError(t, err)
		_, err = conn.ExecContext(ctx, "CREATE TABLE "+tbl+" (id INT PRIMARY KEY, s VARCHAR(40), d DECIMAL(6,2), n INT NULL)")
		require.NoError(t, err)
	}
	odd := []string{`back\slash`, "tab\there", "new\nline", "nul\x00byte", "quote'd", `\N`, "", "plain"}
	fill := func(in *inserter) {
		for i := range batchRows + 3 {
			in.row().int(i).str(odd[i%len(odd)]).raw("12.34")
			if i%3 == 0 {
				in.raw("NULL")
			} else {
				in.int(i)
			}
			require.NoError(t, in.maybeFlush(ctx))
		}
		require.NoError(t, in.flush(ctx))
	}
	var got [2]int
	fill(newInserter(conn, "t_insert", "id, s, d, n", func(n int) { got[0] += n }))
	fill(newBulkInserter(conn, "t_bulk", "id, s, d, n", func(n int) { got[1] += n }))
	require.Equal(t, [2]int{batchRows + 3, batchRows + 3}, got, "progress counts every row once")

	read := func(tbl string) []string {
		rows, err := conn.QueryContext(ctx, "SELECT id, s, d, n FROM "+tbl+" ORDER BY id")
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id int
			var d string
			var s sql.NullString
			var n sql.NullInt64
			require.NoError(t, rows.Scan(&id, &s, &d, &n))
			str := "NULL"
			if s.Valid {
				str = "'" + s.String + "'"
			}
			out = append(out, str+"|"+d+"|"+map[bool]string{true: "v", false: "NULL"}[n.Valid])
		}
		require.NoError(t, rows.Err())
		return out
	}
	want := read("t_insert")
	require.Len(t, want, batchRows+3)
	require.Equal(t, "'tab\there'|12.34|v", want[1])
	require.Equal(t, `'\N'|12.34|v`, want[5], "the string \\N is not NULL")
	require.Equal(t, "''|12.34|NULL", want[6], "an empty string is not NULL")
	require.Equal(t, want, read("t_bulk"))
}

// TestBulkInserterRefusesSkippedRows: LOAD DATA LOCAL skips a row whose key
// exists with only a warning; the bulk inserter turns that into an error,
// as INSERT would fail.
func TestBulkInserterRefusesSkippedRows(t *testing.T) {
	db, _ := testenv.MariaDB(t, "walab_test_tpcc_bulkdup")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(10))")
	require.NoError(t, err)
	_, err = conn.ExecContext(ctx, "INSERT INTO t VALUES (2, 'old')")
	require.NoError(t, err)
	in := newBulkInserter(conn, "t", "id, s", nil)
	in.row().int(1).str("a")
	in.row().int(2).str("b")
	in.row().int(3).str("c")
	require.ErrorContains(t, in.flush(ctx), "load into t stored 2 of 3 rows")
}

// TestPrepareWithoutLocalInfile: a server with local_infile off (MySQL
// 8.0's default) is loaded with INSERTs, and the data passes the checks.
func TestPrepareWithoutLocalInfile(t *testing.T) {
	inst := testenv.StartMariaDB(t, "--local-infile=0")
	db, _ := inst.Open("walab_test_tpcc_noinfile")
	var on int
	require.NoError(t, db.QueryRow("SELECT @@local_infile").Scan(&on))
	require.Equal(t, 0, on)
	w := newTestWorkload(t, Options{Warehouses: 1, Seed: 7, scale: smallScale})
	require.NoError(t, w.Prepare(context.Background(), db, workload.PrepareOptions{Workers: 2}))
	requireChecksPass(t, db, w)
	var n int
	require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM bmsql_stock").Scan(&n))
	require.Equal(t, smallScale.Items, n)
}
