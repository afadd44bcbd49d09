package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/testenv"
)

// modes are the two ways a blocking connection reads: through the runtime
// only, and raw reads first. Every test here runs in both.
var modes = []struct {
	name string
	opts driver.Options
}{
	{"runtime reads", driver.Options{}},
	{"raw reads", driver.Options{RawReadWait: 2 * time.Millisecond}},
}

// forModes runs f as a subtest per mode.
func forModes(t *testing.T, f func(t *testing.T, o driver.Options)) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) { f(t, m.opts) })
	}
}

// openBlocking opens the machine's MariaDB through driver.OpenDB, with the
// DSN's parameters changed by edit.
func openBlocking(t *testing.T, o driver.Options, edit func(string) string) *sql.DB {
	t.Helper()
	_, dsn := testenv.MariaDB(t, "walab_test_driver_blocking")
	db, err := driver.OpenDB(edit(dsn), o)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func same(s string) string { return s }

// Payloads larger than the socket buffers make reads and writes partial,
// which the blocking conn must loop over.
func TestBlockingQueries(t *testing.T) { forModes(t, testBlockingQueries) }

func testBlockingQueries(t *testing.T, o driver.Options) {
	db := openBlocking(t, o, same)
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
func TestBlockingKilledConnection(t *testing.T) { forModes(t, testBlockingKilledConnection) }

func testBlockingKilledConnection(t *testing.T, o driver.Options) {
	db := openBlocking(t, o, same)
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
func TestBlockingReadTimeout(t *testing.T) { forModes(t, testBlockingReadTimeout) }

func testBlockingReadTimeout(t *testing.T, o driver.Options) {
	db := openBlocking(t, o, func(dsn string) string { return strings.Replace(dsn, "readTimeout=30s", "readTimeout=300ms", 1) })
	_, err := db.ExecContext(context.Background(), "SELECT SLEEP(5)")
	require.Error(t, err)
	require.Equal(t, driver.Connection, driver.Classify(err), "error %v", err)
}

// Close from another goroutine wakes a read blocked in the kernel; reads
// and writes after Close fail instead of touching a reused descriptor.
func TestBlockingCloseWakesRead(t *testing.T) { forModes(t, testBlockingCloseWakesRead) }

func testBlockingCloseWakesRead(t *testing.T, o driver.Options) {
	c, peer := dialPair(t, 0, o)
	_, err := c.Write([]byte("ping"))
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

// dialPair connects a blocking conn to a loopback listener and returns it
// with the accepted peer; both are closed when the test ends.
func dialPair(t *testing.T, readTimeout time.Duration, o driver.Options) (net.Conn, net.Conn) {
	t.Helper()
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
	c, err := driver.BlockingDialer(readTimeout, 0, o)(context.Background(), "tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	peer := <-accepted
	t.Cleanup(func() { peer.Close() })
	return c, peer
}

func TestBlockingSocket(t *testing.T) {
	require.True(t, driver.BlockingSocket("root@tcp(127.0.0.1:3306)/db"))
	require.True(t, driver.BlockingSocket("root@tcp6([::1]:3306)/db"))
	require.False(t, driver.BlockingSocket("root@unix(/run/mysqld/mysqld.sock)/db"), "unix sockets keep the runtime's I/O")
	require.False(t, driver.BlockingSocket("not a dsn"))
}

func TestBlockingDialRefused(t *testing.T) {
	port := testenv.FreePort(t)
	_, err := driver.BlockingDialer(0, 0, driver.Options{})(context.Background(), "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	require.Error(t, err)
	require.False(t, errors.Is(err, os.ErrDeadlineExceeded))
}

// A raw read holds its P, which a garbage collection's stop-the-world must
// wait for: the wait is bounded, so a collection started while the server
// has not answered finishes before the answer comes, and the read still
// returns it. The server answers only after runtime.GC returned: with an
// unbounded raw read this test would never end.
func TestRawReadLetsGarbageCollectionRun(t *testing.T) {
	c, peer := dialPair(t, 0, driver.Options{RawReadWait: time.Millisecond})

	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := c.Read(buf)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	// Give the reader time to enter its read; if it has not, the test
	// checks less but cannot fail wrongly.
	time.Sleep(20 * time.Millisecond)
	for range 3 {
		runtime.GC()
	}
	_, err := peer.Write([]byte("answer"))
	require.NoError(t, err)
	require.Equal(t, "answer", <-got)
}

// With raw reads the DSN's readTimeout is enforced by the wait after the raw
// one: a peer that never answers ends the read with a deadline error.
func TestRawReadTimeout(t *testing.T) {
	c, _ := dialPair(t, 50*time.Millisecond, driver.Options{RawReadWait: time.Millisecond})
	_, err := c.Read(make([]byte, 4))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
}
