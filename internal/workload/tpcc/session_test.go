package tpcc

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// sessionCounter reads one of the connection's own status counters.
func sessionCounter(t *testing.T, conn *sql.Conn, name string) int64 {
	t.Helper()
	var n string
	var v int64
	require.NoError(t, conn.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE '"+name+"'").Scan(&n, &v))
	return v
}

func autocommit(t *testing.T, conn *sql.Conn) int {
	t.Helper()
	var v int
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT @@autocommit").Scan(&v))
	return v
}

// sessionTerminal loads a small warehouse into db and returns a connection
// and a terminal to run on it.
func sessionTerminal(t *testing.T, db string) (*sql.Conn, workload.SQLTerminal) {
	t.Helper()
	h, _ := testenv.MariaDB(t, db)
	ctx := context.Background()
	w := newTestWorkload(t, Options{Warehouses: 1, TerminalWarehouseFixed: true, Seed: 3, scale: smallScale})
	require.NoError(t, w.Prepare(ctx, h, workload.PrepareOptions{Workers: 2}))
	conn, err := h.Conn(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn, w.NewTerminal(0, rand.New(rand.NewPCG(1, 2)))
}

// TestTerminalSession: a terminal runs its transactions as BenchmarkSQL does
// through JDBC (autocommit off once, no START TRANSACTION per transaction,
// each one ended by COMMIT or ROLLBACK) and gives the connection back with
// autocommit on.
func TestTerminalSession(t *testing.T) {
	ctx := context.Background()
	conn, term := sessionTerminal(t, "walab_test_tpcc_session")
	begins, commits, rollbacks := sessionCounter(t, conn, "Com_begin"), sessionCounter(t, conn, "Com_commit"), sessionCounter(t, conn, "Com_rollback")
	const n = 60
	var ended int64
	for range n {
		res, err := term.Run(ctx, conn, term.Next())
		require.NoError(t, err)
		require.Contains(t, []workload.Outcome{workload.Committed, workload.UserRollback}, res.Outcome)
		ended++
	}
	require.Equal(t, 0, autocommit(t, conn), "autocommit is off while the terminal holds the connection")
	require.Equal(t, begins, sessionCounter(t, conn, "Com_begin"), "no START TRANSACTION")
	require.Equal(t, ended, sessionCounter(t, conn, "Com_commit")+sessionCounter(t, conn, "Com_rollback")-commits-rollbacks,
		"every transaction ends with COMMIT or ROLLBACK")

	require.NoError(t, term.(interface{ Close() error }).Close())
	require.Equal(t, 1, autocommit(t, conn), "the connection goes back with autocommit on")
}

// TestTerminalCloseDeadConn: a terminal that cannot restore autocommit says
// so, so the runner discards the connection instead of pooling it.
func TestTerminalCloseDeadConn(t *testing.T) {
	conn, term := sessionTerminal(t, "walab_test_tpcc_session_dead")
	_, err := term.Run(context.Background(), conn, TxPayment)
	require.NoError(t, err)
	require.NoError(t, conn.Close()) // the connection is gone under the terminal
	err = term.(interface{ Close() error }).Close()
	require.ErrorContains(t, err, "SET autocommit=1")
}
