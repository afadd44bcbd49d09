package runner

import (
	"context"
	"database/sql"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/workload"
)

// terminal is one client thread: it connects, claims an event, runs a
// transaction paced by the schedule, and thinks, until the run stops.
func (r *run) terminal(id int) {
	r.active.Add(1)
	if r.obs != nil {
		r.obs.active.Inc()
		defer r.obs.active.Dec()
	}
	defer r.active.Add(-1)
	waitCtx, cancelWait := r.stopCtx()
	defer cancelWait()
	t := r.newTermRun(id, waitCtx)
	defer t.close()
	for !r.stopping() {
		// Connect before claiming an event: a claimed event always runs.
		if !t.connect() {
			return
		}
		if r.cfg.Events > 0 && r.issued.Add(1) > r.cfg.Events {
			return // the others finish the claimed events; the run ends when all return
		}
		typ, ti, intended, waited, ok := t.pace()
		if !ok || !t.attempt(typ, ti, intended, waited) {
			return
		}
		if k := t.wl.ThinkTime(typ); k > 0 {
			if r.cfg.Clock.SleepUntil(waitCtx, r.cfg.Clock.Now().Add(seconds(k))) != nil {
				return
			}
		}
	}
}

// termRun is one terminal's state while it runs.
type termRun struct {
	r        *run
	id       int
	st       *termStats
	wl       workload.Mix
	local    workload.Terminal    // a local workload's terminal, or
	onConn   workload.SQLTerminal // an SQL workload's, run on conn
	conn     *sql.Conn
	lostConn bool // the last connection was lost: the next connect is a reconnect
	backoff  *driver.Backoff
	// errBackoff paces a terminal whose transactions keep failing for a
	// reason other than a lost connection (a server set read-only, a full
	// disk, a missing table): without it the terminal retries in a hot loop
	// and buries the run in errors. A success resets it.
	errBackoff *driver.Backoff
	waitCtx    context.Context // canceled at the stop
}

func (r *run) newTermRun(id int, waitCtx context.Context) *termRun {
	seed := r.cfg.Seed ^ uint64(id+1)*0x9e3779b97f4a7c15
	t := &termRun{
		r: r, id: id, st: r.terms[id], waitCtx: waitCtx,
		backoff:    driver.NewBackoff(r.cfg.BackoffMin, r.cfg.BackoffMax, seed),
		errBackoff: driver.NewBackoff(r.cfg.BackoffMin, r.cfg.BackoffMax, seed^0x5bd1e995),
	}
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	if r.cfg.SQL != nil {
		t.onConn = r.cfg.SQL.NewTerminal(id, rng)
		t.wl = t.onConn
	} else {
		t.local = r.cfg.Workload.NewTerminal(id, rng)
		t.wl = t.local
	}
	return t
}

// exec runs one transaction: an SQL terminal's on the terminal's connection.
func (t *termRun) exec(typ string) (workload.Result, error) {
	if t.onConn != nil {
		return t.onConn.Run(t.r.txCtx, t.conn, typ)
	}
	return t.local.Run(t.r.txCtx, typ)
}

// close closes the terminal before its connection: its prepared
// statements belong to that connection. A terminal that cannot close
// cleanly (it could not restore the session) has its connection discarded
// rather than pooled.
func (t *termRun) close() {
	discard := false
	if c, ok := t.wl.(io.Closer); ok {
		discard = c.Close() != nil
	}
	t.dropConn(discard)
}

// dropConn closes the connection; discard when it is not to be trusted.
func (t *termRun) dropConn(discard bool) {
	if t.conn == nil {
		return
	}
	if discard {
		driver.Discard(t.conn)
	} else {
		t.conn.Close()
	}
	t.conn = nil
	t.r.reach.lost()
}

// connect makes sure the terminal holds a connection (none for a local
// workload), waiting in the reconnect backoff while the server is away.
// False: stopping, or the server refused the login; the terminal is done.
func (t *termRun) connect() bool {
	cfg := &t.r.cfg
	if t.conn != nil || cfg.SQL == nil {
		return true
	}
	c, err := driver.Connect(t.waitCtx, cfg.DB, t.backoff, t.connFailed)
	if err != nil {
		if t.waitCtx.Err() == nil {
			t.connFailed(err) // refused: this terminal says why
		}
		return false
	}
	t.conn = c
	t.st.connected.Store(true)
	t.r.reach.connected(cfg.Clock.Now())
	if t.lostConn {
		t.st.reconnects.Add(1)
		if t.r.obs != nil {
			t.r.obs.reconnects.Inc()
		}
		t.lostConn = false
	}
	return true
}

// connFailed counts one failed connection attempt.
func (t *termRun) connFailed(err error) {
	cfg := &t.r.cfg
	if !t.st.connected.Load() {
		msg := connErrText(err)
		t.st.lastConnErr.Store(&msg)
	}
	t.st.connFails.Add(1)
	t.r.reach.failed(cfg.Clock.Now())
	if t.r.obs != nil {
		t.r.obs.connFails.Inc()
	}
	if cfg.OnError != nil {
		cfg.OnError(t.id, driver.Connection, err)
	}
}

// pace picks the next transaction and waits for its intended start (under
// --rate) and its keying time. ok false: stopping.
func (t *termRun) pace() (typ string, ti int, intended time.Time, waited, ok bool) {
	cfg := &t.r.cfg
	// One clock read serves as intended start and, when nothing waits
	// in between, as the first attempt's start.
	intended = cfg.Clock.Now()
	if t.r.sched != nil {
		waited = true
		_, intended = t.r.sched.Claim()
		if cfg.Clock.SleepUntil(t.waitCtx, intended) != nil {
			return "", 0, intended, waited, false
		}
	}
	typ = t.wl.Next()
	ti = t.r.typeIdx[typ] // a type the workload did not declare (a bug) counts under the first
	if k := t.wl.KeyingTime(typ); k > 0 {
		waited = true
		if cfg.Clock.SleepUntil(t.waitCtx, cfg.Clock.Now().Add(seconds(k))) != nil {
			return "", 0, intended, waited, false
		}
	}
	return typ, ti, intended, waited, true
}

// attempt runs one transaction, retrying deadlocks and lock wait timeouts,
// and counts its outcome once. False: the terminal is done (abandoned at
// the drain timeout, or stopping during an error backoff).
func (t *termRun) attempt(typ string, ti int, intended time.Time, waited bool) bool {
	r, cfg, st := t.r, &t.r.cfg, t.st
	for attempt := 0; ; attempt++ {
		st.curType.Store(int32(ti))
		if !st.state.CompareAndSwap(stIdle, stBusy) {
			return false
		}
		t0 := intended
		if waited || attempt > 0 {
			t0 = cfg.Clock.Now()
		}
		res, err := t.exec(typ)
		end := cfg.Clock.Now()
		if !st.state.CompareAndSwap(stBusy, stIdle) {
			return false // abandoned at the drain timeout: the runner counted it
		}
		st.busyNs.Add(int64(end.Sub(t0)))
		r.countStatements(st, res)
		class := driver.Classify(err)
		if class == driver.OK {
			o := oCommitted
			if res.Outcome == workload.UserRollback {
				o = oRollback
			}
			r.record(st, ti, o, end.Sub(intended))
			st.events.Add(1)
			t.errBackoff.Reset()
			return true
		}
		if cfg.OnError != nil {
			cfg.OnError(t.id, class, err)
		}
		if r.obs != nil {
			r.obs.errs[class.String()].Inc()
		}
		if class.Retryable() && attempt < cfg.MaxRetries && !r.stopping() {
			r.record(st, ti, oRetried, 0)
			continue
		}
		r.record(st, ti, oError, 0)
		return t.afterError(class)
	}
}

// afterError leaves the connection clean or drops it after a failed
// transaction, and waits before the next one unless the connection was
// lost (Connect's own backoff waits then). False: stopping.
func (t *termRun) afterError(class driver.Class) bool {
	cfg := &t.r.cfg
	switch class {
	case driver.Connection, driver.Canceled:
		if t.conn != nil {
			t.dropConn(true)
			t.lostConn = class == driver.Connection
		}
		return true
	case driver.Other:
		if t.conn != nil {
			// Leave no transaction open behind an unexpected error.
			_, _ = t.conn.ExecContext(t.r.txCtx, "ROLLBACK")
		}
	}
	return cfg.Clock.SleepUntil(t.waitCtx, cfg.Clock.Now().Add(t.errBackoff.Next())) == nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// connErrText is a connection error as the summary groups it: the server's
// message, cut to one line (it never holds a DSN: go-sql-driver's errors
// name the address, not the password).
func connErrText(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 120 {
		msg = msg[:120] + "..."
	}
	return msg
}
