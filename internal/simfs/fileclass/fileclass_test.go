package fileclass

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOf holds the table in docs/simfs.md: the file names MariaDB 10.11 and
// MySQL 8 write, as mariadb-install-db and a TPC-C run leave them.
func TestOf(t *testing.T) {
	for _, c := range cases {
		require.Equal(t, c.want.String(), Of(c.name, c.off).String(), "%s @%d", c.name, c.off)
	}
}

// TestMemo: a Memo answers as Of, asked in any order and again, and
// after it forgot its names.
func TestMemo(t *testing.T) {
	var m Memo
	for range 2 {
		for i := len(cases) - 1; i >= 0; i-- {
			c := cases[i]
			require.Equal(t, c.want.String(), m.Of(c.name, c.off).String(), "%s @%d", c.name, c.off)
		}
	}
	for i := range memoMax {
		require.Equal(t, Binlog, m.Of(fmt.Sprintf("binlog.%06d", i), 0))
	}
	require.Less(t, len(m.m), memoMax, "full, it forgot its names and started again")
	for _, c := range cases {
		require.Equal(t, c.want.String(), m.Of(c.name, c.off).String(), "%s @%d", c.name, c.off)
	}
}

var cases = []struct {
	name string
	off  uint64
	want Class
}{
	{"ib_logfile0", 0, Redo},
	{"ib_logfile101", 4096, Redo},
	{"#innodb_redo/#ib_redo12", 0, Redo},
	{"#ib_16384_0.dblwr", 0, Doublewrite},
	{"ibdata1", 1 << 20, Doublewrite},
	{"ibdata1", 3<<20 - 16384, Doublewrite},
	{"ibdata1", 3 << 20, System},
	{"ibdata1", 0, System},
	{"ibdata2", 2 << 20, System},
	{"tpcc/bmsql_stock.ibd", 0, Data},
	{"mysql/innodb_table_stats.ibd", 0, Data},
	{"undo001", 0, Undo},
	{"undo_002", 0, Undo},
	{"mysql-bin.000001", 0, Binlog},
	{"binlog.000123", 0, Binlog},
	{"host-bin.index", 0, Binlog},
	{"aria_log.00000001", 0, Other},
	{"aria_log_control", 0, Other},
	{"ibtmp1", 0, Other},
	{"ib_buffer_pool", 0, Other},
	{"tpcc/bmsql_stock.frm", 0, Other},
	{"ddl_recovery.log", 0, Other},
}
