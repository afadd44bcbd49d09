package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/testenv"
)

// openBlocking opens the machine's MariaDB through driver.OpenDB, with the
// DSN's parameters changed by edit.
func openBlocking(t *testing.T, edit func(string) string) *sql.DB {
	t.Helper()
	_, dsn := testenv.MariaDB(t, "walab_test_driver_blocking")
	db, err := driver.OpenDB(edit(dsn))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func same(s string) string { return s }

// Payloads larger than the socket buffers make reads and writes partial,
// which the blocking conn must loop over.
func TestBlockingQueries(t *testing.T) {
	db := openBlocking(t, same)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		size int
	}{{"small", 10}, {"below the raw-write limit", 4000}, {"above it", 4200}, {"64KiB", 64 << 10}, {"4MiB", 4 << 20}} {
		t.Run(tc.name, func(t *testing.T) {
			arg := strings.Repeat("x", tc.size)
			var n int
			require.NoError(t, db.QueryRowContext(ctx, "SELECT LENGTH(?)", arg).Scan(&n))
			require.Equal(t, tc.size, n)
			var got string
			require.NoError(t, db.QueryRowContext(ctx, "SELECT REPEAT('y', ?)", tc.size).Scan(&got))
			require.Equal(t, tc.size, len(got))
		})
	}
}

// A killed connection is an error of class Connection, and the pool recovers.
func TestBlockingKilledConnection(t *testing.T) {
	db := openBlocking(t, same)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	var id int64
	require.NoError(t, conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id))
	_, err = db.ExecContext(ctx, "KILL CONNECTION ?", id)
	require.NoError(t, err)
	_, err = conn.ExecContext(ctx, "SELECT 1")
	require.Error(t, err)
	require.Equal(t, driver.Connection, driver.Classify(err), "error %v", err)
	driver.Discard(conn)
	require.NoError(t, db.PingContext(ctx))
}

// The DSN's readTimeout still ends a wait for a server that does not answer.
func TestBlockingReadTimeout(t *testing.T) {
	db := openBlocking(t, func(dsn string) string { return strings.Replace(dsn, "readTimeout=30s", "readTimeout=300ms", 1) })
	_, err := db.ExecContext(context.Background(), "SELECT SLEEP(5)")
	require.Error(t, err)
	require.Equal(t, driver.Connection, driver.Classify(err), "error %v", err)
}

// Close from another goroutine wakes a read blocked in the kernel; reads
// and writes after Close fail instead of touching a reused descriptor.
func TestBlockingCloseWakesRead(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := driver.BlockingDialer(0, 0)(context.Background(), "tcp", ln.Addr().String())
	require.NoError(t, err)
	peer := <-accepted
	defer peer.Close()

	_, err = c.Write([]byte("ping"))
	require.NoError(t, err)
	buf := make([]byte, 4)
	_, err = peer.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "ping", string(buf))

	done := make(chan error, 1)
	go func() {
		_, err := c.Read(buf)
		done <- err
	}()
	require.NoError(t, c.Close())
	require.Error(t, <-done)
	_, err = c.Read(buf)
	require.Error(t, err)
	_, err = c.Write(buf)
	require.Error(t, err)
	require.NoError(t, c.Close(), "second Close is a no-op")
}

func TestBlockingDialRefused(t *testing.T) {
	port := testenv.FreePort(t)
	_, err := driver.BlockingDialer(0, 0)(context.Background(), "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	require.Error(t, err)
	require.False(t, errors.Is(err, os.ErrDeadlineExceeded))
}
