package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Backoff is capped exponential backoff with full jitter: a restarted server
// is not hammered by every terminal at the same instant.
type Backoff struct {
	Min, Max time.Duration
	attempt  int
	rng      *rand.Rand
}

// NewBackoff returns a backoff from min doubling up to max; seed makes the
// jitter deterministic for tests.
func NewBackoff(min, max time.Duration, seed uint64) *Backoff {
	if min <= 0 {
		min = 50 * time.Millisecond
	}
	if max < min {
		max = min
	}
	return &Backoff{Min: min, Max: max, rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// Next returns the pause before the next attempt.
func (b *Backoff) Next() time.Duration {
	d := b.Min << min(b.attempt, 30)
	if d > b.Max || d <= 0 {
		d = b.Max
	}
	b.attempt++
	// Full jitter in [d/2, d): bounded below so the cap is meaningful.
	half := d / 2
	return half + time.Duration(b.rng.Int64N(int64(half)+1))
}

// Reset starts over after a success.
func (b *Backoff) Reset() { b.attempt = 0 }

// Login errors: the server answered and refused the session itself.
const (
	ErDBAccessDenied       = 1044
	ErAccessDenied         = 1045
	ErBadDB                = 1049
	ErNotSupportedAuthMode = 1251
	ErAccessDeniedNoPass   = 1698
)

// Refused reports whether err is a server refusing the login (access
// denied, unknown database, unsupported authentication): an answer that
// waiting for the server does not change, unlike a server that is away.
func Refused(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case ErDBAccessDenied, ErAccessDenied, ErBadDB, ErNotSupportedAuthMode, ErAccessDeniedNoPass:
		return true
	}
	return false
}

// Connect gets a live connection from db, retrying with backoff until ctx
// ends. onRetry (may be nil) is told about each failed attempt. A login the
// server refuses (Refused) is returned at once, not retried.
func Connect(ctx context.Context, db *sql.DB, b *Backoff, onRetry func(error)) (*sql.Conn, error) {
	for {
		conn, err := db.Conn(ctx)
		if err == nil {
			err = conn.PingContext(ctx)
			if err == nil {
				b.Reset()
				return conn, nil
			}
			Discard(conn)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if Refused(err) {
			return nil, err
		}
		if onRetry != nil {
			onRetry(err)
		}
		t := time.NewTimer(b.Next())
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// Discard closes conn and keeps database/sql from returning its driver
// connection to the pool: after a connection error it is not to be trusted.
func Discard(conn *sql.Conn) {
	if conn == nil {
		return
	}
	_ = conn.Raw(func(any) error { return errDiscard })
	conn.Close()
}

// errDiscard wraps driver.ErrBadConn so database/sql drops the connection.
var errDiscard = badConn{}

type badConn struct{}

func (badConn) Error() string { return "discard connection" }
func (badConn) Unwrap() error { return driver.ErrBadConn }
