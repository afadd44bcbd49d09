package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// Class says what the runner should do with an error.
type Class int

const (
	// OK: no error.
	OK Class = iota
	// Deadlock (1213): the server rolled the transaction back; retry it.
	Deadlock
	// LockWait (1205): lock wait timeout; roll back and retry.
	LockWait
	// Connection: the connection is gone (dropped, killed, server restart);
	// reconnect with backoff, then go on.
	Connection
	// Canceled: the run is stopping.
	Canceled
	// Other: a server error the workload did not expect; counted, not retried.
	Other
)

func (c Class) String() string {
	switch c {
	case OK:
		return "ok"
	case Deadlock:
		return "deadlock"
	case LockWait:
		return "lock_wait_timeout"
	case Connection:
		return "connection"
	case Canceled:
		return "canceled"
	default:
		return "other"
	}
}

// Retryable reports whether the transaction should be run again.
func (c Class) Retryable() bool { return c == Deadlock || c == LockWait }

// MySQL error numbers the classifier knows.
const (
	ErLockWaitTimeout = 1205
	ErLockDeadlock    = 1213
	ErServerShutdown  = 1053
	ErConnKilled      = 1927 // MariaDB ER_CONNECTION_KILLED
	ErQueryKilled     = 1317 // query interrupted: server shutting down or KILL QUERY
	CrServerGone      = 2006
	CrServerLost      = 2013
	ErQueryTimeout    = 3024
)

// Classify maps an error from database/sql or go-sql-driver to a Class.
func Classify(err error) Class {
	if err == nil {
		return OK
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Canceled
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case ErLockDeadlock:
			return Deadlock
		case ErLockWaitTimeout:
			return LockWait
		case ErServerShutdown, ErConnKilled, CrServerGone, CrServerLost, ErQueryKilled:
			return Connection
		}
		return Other
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, mysql.ErrMalformPkt) || errors.Is(err, mysql.ErrPktSync) {
		return Connection
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return Connection
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return Connection
	}
	// database/sql reports a *sql.Conn whose driver connection went bad.
	if errors.Is(err, sql.ErrConnDone) {
		return Connection
	}
	return Other
}

// Code returns the MySQL error number of err, 0 if it has none.
func Code(err error) int {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number)
	}
	return 0
}
