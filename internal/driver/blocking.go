package driver

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
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

// Raw reads (Options.RawReadWait). Even on a blocking socket, a read goes
// through the runtime's syscall entry and exit, and when it waits longer
// than sysmon's 20 us the runtime hands its P to another thread and takes
// one back after: about twice a sysbench thread's context switches per
// statement, and most of the gap between the two clients' CPU per
// transaction (docs/loadgen.md). A raw read(2) keeps the thread and its P
// through the wait, as a sysbench thread keeps its CPU. A P held that way
// cannot stop for a garbage collection, so the wait is bounded: the socket's
// SO_RCVTIMEO is RawReadWait, and a reply that takes longer (or a signal) is
// waited for with ppoll(2) through the runtime, which honours the DSN's
// readTimeout. A collection is therefore delayed by at most RawReadWait.
// Each terminal holds a P while it waits, so the caller needs more Ps than
// terminals (GOMAXPROCS) or the terminals queue for Ps.

// Options are OpenDB's settings for TCP connections.
type Options struct {
	// RawReadWait is how long a read waits for its reply in a raw read(2)
	// before it waits through the runtime (see above); 0 or less reads through the
	// runtime only.
	RawReadWait time.Duration
}

// OpenDB opens dsn like sql.Open("mysql", dsn), but TCP connections use
// blocking sockets (see above). Other networks (unix) are opened as usual.
func OpenDB(dsn string, o Options) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if isTCP(cfg) {
		cfg.DialFunc = BlockingDialer(cfg.ReadTimeout, cfg.WriteTimeout, o)
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

// BlockingSocket reports whether OpenDB connects to dsn over a blocking
// socket (TCP), where Options apply.
func BlockingSocket(dsn string) bool {
	cfg, err := mysql.ParseDSN(dsn)
	return err == nil && isTCP(cfg)
}

func isTCP(cfg *mysql.Config) bool {
	return cfg.Net == "tcp" || cfg.Net == "tcp4" || cfg.Net == "tcp6"
}

// BlockingDialer returns a go-sql-driver DialFunc whose connections are
// blocking sockets with the given receive and send timeouts (0: none).
func BlockingDialer(readTimeout, writeTimeout time.Duration, o Options) func(ctx context.Context, network, addr string) (net.Conn, error) {
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
		bc, err := newBlockingConn(tc, readTimeout, writeTimeout, o.RawReadWait)
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
	rawWait       bool          // reads start with a raw read (Options.RawReadWait)
	readTimeout   time.Duration // with rawWait: the ppoll bound after it
	yieldAt       time.Time     // with rawWait: the last runtime.Gosched
	slowWaits     int           // with rawWait: reads that went on in ppoll (tests)
	local, remote net.Addr
	closed        atomic.Bool
	closeOnce     sync.Once
	closeErr      error
}

func newBlockingConn(tc *net.TCPConn, readTimeout, writeTimeout, rawWait time.Duration) (*blockingConn, error) {
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
	if rawWait > 0 {
		// The socket's receive timeout bounds the raw read; the DSN's
		// bounds the ppoll after it.
		bc.rawWait, bc.readTimeout = true, readTimeout
		readTimeout = rawWait
	}
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
	if c.rawWait {
		return c.readRaw(b)
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

// yieldEvery keeps a terminal that waits in raw reads from looking stuck to
// the runtime. The scheduler never sees it between raw reads, so after
// 10 ms sysmon preempts it with a signal, which ends the raw read (EINTR)
// and sends it through the runtime's wait: at 16 terminals on 2 cores that
// cost a point select 20-23 us of client CPU against 14-19 us with
// GODEBUG=asyncpreemptoff=1 (docs/loadgen.md). A terminal that yields on
// its own more often than every 10 ms is never preempted; each yield may
// wake an idle thread, so not much more often.
const yieldEvery = 8 * time.Millisecond

// readRaw is Read with raw reads (see Options.RawReadWait).
func (c *blockingConn) readRaw(b []byte) (int, error) {
	if now := time.Now(); now.Sub(c.yieldAt) >= yieldEvery {
		c.yieldAt = now
		runtime.Gosched()
	}
	for {
		n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case e == 0 && n == 0:
			return 0, io.EOF
		case e == 0:
			return int(n), nil
		case e != unix.EAGAIN && e != unix.EINTR:
			return 0, c.opErr("read", e)
		}
		// No reply within the raw wait, or a signal (the runtime's
		// preemption or profiling): wait through the runtime, where a
		// garbage collection can stop this goroutine.
		c.slowWaits++
		if err := c.waitReadable(); err != nil {
			return 0, err
		}
	}
}

// waitReadable waits in ppoll(2), through the runtime, until the socket
// is readable (or hung up), for at most the DSN's readTimeout.
func (c *blockingConn) waitReadable() error {
	var deadline time.Time
	if c.readTimeout > 0 {
		deadline = time.Now().Add(c.readTimeout)
	}
	fds := []unix.PollFd{{Fd: int32(c.fd), Events: unix.POLLIN}}
	for {
		if c.closed.Load() {
			return c.opErr("read", net.ErrClosed)
		}
		var ts *unix.Timespec
		if !deadline.IsZero() {
			t := unix.NsecToTimespec(max(time.Until(deadline), 0).Nanoseconds())
			ts = &t
		}
		n, err := unix.Ppoll(fds, ts, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return c.opErr("read", err)
		case n == 0:
			return c.opErr("read", os.ErrDeadlineExceeded)
		}
		return nil
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
