package driver

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/go-sql-driver/mysql"
	"golang.org/x/sys/unix"
)

// Blocking socket I/O for the load's connections.
//
// A terminal sends one statement and waits for its answer, over and over. On
// a Go net.Conn each wait is a read that fails with EAGAIN, a park on the
// netpoller, an epoll_pwait and a futex wake-up of another thread, and then
// the read again: about twice the syscalls sysbench makes (a blocking send
// and recv per statement), and on a machine where client and server share
// the cores that client CPU is taken from the server. A blocking socket
// lets the terminal's OS thread sleep in recv instead, as sysbench's threads
// do; the Go runtime hands the P on only if another goroutine needs it.
//
// Small writes skip the scheduler: a statement of at most rawWriteMax bytes
// goes out with a raw write(2), without the runtime's syscall entry and exit
// (and the P handoff sysmon may start meanwhile). It cannot block: the MySQL
// protocol waits for each reply before the next command, so the socket's
// send buffer (16 KiB or more) is empty when it is written. Larger writes
// (prepare's multi-row INSERTs) take the ordinary path, so a slow server
// never holds a P, nor a garbage collection's stop-the-world, on them.
// Measured with 4 threads, 15 s runs alternated on this 2-core machine:
// oltp_point_select 17.7-17.8 us of client CPU per transaction against
// 19.2-19.9 us with every write through the runtime; oltp_read_write no
// measurable difference (773-818 against 771-785 us) (docs/loadgen.md).
//
// Deadlines: go-sql-driver sets read and write deadlines of now+timeout
// before every I/O. Here they become the socket's SO_RCVTIMEO/SO_SNDTIMEO,
// set once at dial from the DSN's readTimeout and writeTimeout: a dead
// server still turns into an error, with no syscall per statement.

// OpenDB opens dsn like sql.Open("mysql", dsn), but TCP connections use
// blocking sockets (see above). Other networks (unix) are opened as usual.
func OpenDB(dsn string) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if cfg.Net == "tcp" || cfg.Net == "tcp4" || cfg.Net == "tcp6" {
		cfg.DialFunc = BlockingDialer(cfg.ReadTimeout, cfg.WriteTimeout)
		// The socket enforces them now; without them go-sql-driver also
		// skips its time.Now and SetDeadline calls around every I/O.
		cfg.ReadTimeout, cfg.WriteTimeout = 0, 0
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

// BlockingDialer returns a go-sql-driver DialFunc whose connections are
// blocking sockets with the given receive and send timeouts (0: none).
func BlockingDialer(readTimeout, writeTimeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc, ok := c.(*net.TCPConn)
		if !ok {
			return c, nil
		}
		_ = tc.SetKeepAlive(true) // as go-sql-driver does for its own TCP conns
		bc, err := newBlockingConn(tc, readTimeout, writeTimeout)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("blocking socket for %s: %w", addr, err)
		}
		return bc, nil
	}
}

// blockingConn is a net.Conn over a blocking socket descriptor. One
// goroutine at a time reads or writes it (go-sql-driver's use); Close may
// come from another and wakes a blocked read with shutdown(2).
type blockingConn struct {
	fd            int
	local, remote net.Addr
	closed        atomic.Bool
	closeOnce     sync.Once
	closeErr      error
}

func newBlockingConn(tc *net.TCPConn, readTimeout, writeTimeout time.Duration) (*blockingConn, error) {
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil, err
	}
	// The duplicate shares the socket; closing the net.TCPConn afterwards
	// takes the original descriptor out of the netpoller.
	fd := -1
	var dupErr error
	if err := raw.Control(func(s uintptr) { fd, dupErr = unix.Dup(int(s)) }); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, dupErr
	}
	bc := &blockingConn{fd: fd, local: tc.LocalAddr(), remote: tc.RemoteAddr()}
	tc.Close()
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, err
	}
	for _, o := range []struct {
		opt int
		d   time.Duration
	}{{unix.SO_RCVTIMEO, readTimeout}, {unix.SO_SNDTIMEO, writeTimeout}} {
		if o.d <= 0 {
			continue
		}
		tv := unix.NsecToTimeval(o.d.Nanoseconds())
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, o.opt, &tv); err != nil {
			unix.Close(fd)
			return nil, err
		}
	}
	return bc, nil
}

func (c *blockingConn) Read(b []byte) (int, error) {
	if c.closed.Load() {
		return 0, c.opErr("read", net.ErrClosed)
	}
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(c.fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, c.opErr("read", os.ErrDeadlineExceeded)
		case err != nil:
			return 0, c.opErr("read", err)
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(b []byte) (int, error) {
	if c.closed.Load() {
		return 0, c.opErr("write", net.ErrClosed)
	}
	done := 0
	for done < len(b) {
		n, err := c.write(b[done:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return done, c.opErr("write", os.ErrDeadlineExceeded)
		case err != nil:
			return done, c.opErr("write", err)
		}
		done += n
	}
	return done, nil
}

// rawWriteMax is the largest write sent without the scheduler (see above):
// a quarter of the smallest default TCP send buffer (tcp_wmem 16 KiB).
const rawWriteMax = 4096

// write is one write(2) of b: raw when b is small, through the runtime
// otherwise.
func (c *blockingConn) write(b []byte) (int, error) {
	if len(b) > rawWriteMax {
		return unix.Write(c.fd, b)
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func (c *blockingConn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
}

func (c *blockingConn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		_ = unix.Shutdown(c.fd, unix.SHUT_RDWR) // wakes a read blocked in another thread
		c.closeErr = unix.Close(c.fd)
	})
	return c.closeErr
}

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

// Deadlines are the fixed socket timeouts set at dial (see above).
func (c *blockingConn) SetDeadline(time.Time) error      { return nil }
func (c *blockingConn) SetReadDeadline(time.Time) error  { return nil }
func (c *blockingConn) SetWriteDeadline(time.Time) error { return nil }
