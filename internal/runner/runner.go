// Package runner drives a workload against one target: a local
// workload.Workload on the client alone, or a workload.SQL wrapped in
// terminals with their own connections; pacing by an intended-start schedule, retries
// of deadlocks and lock wait timeouts, reconnects with backoff, metrics,
// sysbench-style report lines, and the final summary.
package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/workload"
)

// Config of one run against one target.
type Config struct {
	Target string // label value; "" becomes "default"
	// Workload is a local workload (sysbench cpu, memory, fileio): its
	// terminals run without a connection. Set it or SQL, not both.
	Workload workload.Workload
	// SQL is a database workload, run on DB: each terminal holds a
	// connection of DB's, which the runner opens and reopens.
	SQL workload.SQL
	DB  *sql.DB
	// Report is the style of the report lines and summary (the workload's
	// registration gives it).
	Report  workload.Report
	Threads int
	// Duration and Events bound the run; 0 means no bound for that one. With
	// both 0 the run goes until ctx ends.
	Duration time.Duration
	Events   int64
	// Rate is the target transactions per second over all terminals; 0 is unlimited.
	Rate           float64
	ReportInterval time.Duration // 0: no report lines
	Percentile     float64       // of report lines and summary; default 95
	Out            io.Writer     // report lines; nil discards
	LinePrefix     string        // prepended to report lines (multi-target)
	Metrics        *Metrics      // nil: no Prometheus series
	RunID          string
	Scenario       string
	Seed           uint64
	// MaxRetries of one transaction after a deadlock or lock wait timeout
	// (default 10); after that it counts as an error.
	MaxRetries int
	// DrainTimeout bounds the wait for in-flight transactions after the
	// stop (default 30 s); those still running are then canceled and
	// counted as errors.
	DrainTimeout time.Duration
	// Reconnect backoff (defaults 100 ms .. 5 s).
	BackoffMin, BackoffMax time.Duration
	Clock                  Clock // nil: real time
	// OnError, if set, sees every failed attempt (for logging).
	OnError func(terminal int, class driver.Class, err error)
}

func (c *Config) defaults() error {
	if (c.Workload == nil) == (c.SQL == nil) {
		return errors.New("runner: Workload or SQL is required, and not both")
	}
	if (c.DB == nil) != (c.Workload != nil) {
		return errors.New("runner: DB is required with an SQL workload, and for it alone")
	}
	if c.Threads < 1 {
		return fmt.Errorf("runner: Threads must be >= 1 (got %d)", c.Threads)
	}
	if c.Rate < 0 || c.Events < 0 || c.Duration < 0 {
		return fmt.Errorf("runner: Rate, Events and Duration must be >= 0 (got %g, %d, %v)", c.Rate, c.Events, c.Duration)
	}
	if c.Target == "" {
		c.Target = "default"
	}
	if c.Percentile == 0 {
		c.Percentile = 95
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 10
	}
	if c.DrainTimeout == 0 {
		c.DrainTimeout = 30 * time.Second
	}
	if c.BackoffMin == 0 {
		c.BackoffMin = 100 * time.Millisecond
	}
	if c.BackoffMax == 0 {
		c.BackoffMax = 5 * time.Second
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	return nil
}

// info is the workload, local or SQL.
func (c *Config) info() workload.Info {
	if c.SQL != nil {
		return c.SQL
	}
	return c.Workload
}

// init lets the workload open or read what the run needs before the
// terminals start.
func (c *Config) init(ctx context.Context) error {
	if in, ok := c.SQL.(workload.SQLInitializer); ok {
		return in.Init(ctx, c.DB)
	}
	if in, ok := c.Workload.(workload.Initializer); ok {
		return in.Init(ctx)
	}
	return nil
}

type run struct {
	cfg     Config
	info    workload.Info // cfg.Workload or cfg.SQL
	types   []string
	typeIdx map[string]int
	terms   []*termStats
	obs     *targetObservers
	sched   *Schedule
	issued  atomic.Int64 // events claimed, for --events
	active  atomic.Int64
	stop    chan struct{}
	stopped sync.Once
	stopAt  time.Time
	txCtx   context.Context // never canceled: see Run
	exited  chan int        // terminal ids as they return
	reach   reach
}

// Run drives the workload until the duration or event count is reached or
// ctx ends (SIGINT/SIGTERM): then no new transaction starts, in-flight ones
// get DrainTimeout to finish, and the Result covers every transaction once.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if err := cfg.init(ctx); err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, info: cfg.info(), typeIdx: map[string]int{}, stop: make(chan struct{})}
	r.types = r.info.TxTypes()
	for i, t := range r.types {
		r.typeIdx[t] = i
	}
	r.obs = cfg.Metrics.forTarget(cfg.Target, r.info.Name(), r.types, cfg.Report.IO)
	// Transactions run under a context that is never canceled: go-sql-driver
	// hands every query on a cancelable context to a watcher goroutine, a
	// cost per statement that shows next to sysbench. The drain timeout
	// abandons stuck terminals instead (see abandon).
	r.txCtx = context.WithoutCancel(ctx)
	r.exited = make(chan int, cfg.Threads)

	start := cfg.Clock.Now()
	if cfg.Metrics != nil {
		cfg.Metrics.RunInfo.WithLabelValues(cfg.RunID, r.info.Name(), cfg.Scenario, cfg.Target).Set(1)
		cfg.Metrics.RunStart.WithLabelValues(cfg.Target).Set(float64(start.UnixNano()) / 1e9)
		cfg.Metrics.TargetRate.WithLabelValues(cfg.Target).Set(cfg.Rate)
	}
	if cfg.Rate > 0 {
		r.sched = NewSchedule(start, cfg.Rate)
	}
	r.terms = make([]*termStats, cfg.Threads)
	hists := histogramShards(cfg.Threads, len(r.types))
	for i := range r.terms {
		r.terms[i] = newTermStats(hists[i%len(hists)])
	}

	// Stop on ctx, on the duration, or when the last event is claimed.
	go func() {
		var timeout <-chan time.Time
		if cfg.Duration > 0 {
			t := time.NewTimer(cfg.Duration)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ctx.Done():
		case <-timeout:
		case <-r.stop:
		}
		r.halt()
	}()

	for i := range cfg.Threads {
		go func() {
			defer func() { r.exited <- i }()
			r.terminal(i)
		}()
	}
	reportDone := make(chan struct{})
	var reporter sync.WaitGroup
	if cfg.ReportInterval > 0 {
		reporter.Go(func() { r.report(start, reportDone) })
	}

	drained := r.wait(cfg.Threads)
	stopAt := r.stopAt
	close(reportDone)
	reporter.Wait()
	end := cfg.Clock.Now()
	if cfg.Metrics != nil {
		cfg.Metrics.Active.WithLabelValues(cfg.Target).Set(0)
	}
	return r.result(start, stopAt, end, drained), nil
}

// result is the run's Result in the workload's report style.
func (r *run) result(start, stopAt, end time.Time, drained bool) *Result {
	final := takeSnapshot(end, r.terms, len(r.types))
	res := newResult(&r.cfg, r.types, start, stopAt, end, final, drained)
	res.UnreachableSeconds = r.reach.unreachable(end).Seconds()
	if h := r.cfg.Report.Headline; h != "" {
		res.SetNewOrderType(h)
	}
	res.IO = r.cfg.Report.IO
	if h, ok := r.info.(workload.Headed); ok {
		res.Head = h.SummaryHead(res.Transactions, res.TotalSeconds)
	}
	return res
}

// wait returns when all terminals have returned (the event count was
// reached, or they drained after the stop), or, DrainTimeout after the
// stop, when all but the abandoned ones have. It reports whether nothing
// had to be abandoned.
func (r *run) wait(threads int) bool {
	running := threads
	for running > 0 {
		select {
		case <-r.exited:
			running--
			continue
		case <-r.stop:
		}
		break
	}
	if running == 0 {
		r.halt()
		return true
	}
	timeout := time.After(r.cfg.DrainTimeout)
	for running > 0 {
		select {
		case <-r.exited:
			running--
		case <-timeout:
			abandoned := r.abandon()
			for running > abandoned {
				<-r.exited
				running--
			}
			return abandoned == 0
		}
	}
	return true
}

// Terminal states: a terminal inside Workload.Run is busy; at the drain
// timeout the runner turns busy terminals into abandoned ones and counts
// their transaction as an error. Compare-and-swap on both sides makes sure
// a transaction is counted once, by the terminal or by the runner.
const (
	stIdle int32 = iota
	stBusy
	stAbandoned
)

func (r *run) abandon() int {
	n := 0
	for _, st := range r.terms {
		if st.state.CompareAndSwap(stBusy, stAbandoned) {
			n++
			r.record(st, int(st.curType.Load()), oError, 0)
			if r.obs != nil {
				r.obs.errs[driver.Canceled.String()].Inc()
			}
		}
	}
	return n
}

func (r *run) halt() {
	r.stopped.Do(func() {
		r.stopAt = r.cfg.Clock.Now()
		close(r.stop)
	})
}

func (r *run) stopping() bool {
	select {
	case <-r.stop:
		return true
	default:
		return false
	}
}

// stopCtx is canceled at the stop: waits between transactions end early.
func (r *run) stopCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.txCtx)
	go func() {
		select {
		case <-r.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

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

func (r *run) countStatements(st *termStats, res workload.Result) {
	st.reads.Add(uint64(res.Reads))
	st.writes.Add(uint64(res.Writes))
	st.others.Add(uint64(res.Other))
	if res.ReadBytes > 0 {
		st.readBytes.Add(uint64(res.ReadBytes))
	}
	if res.WrittenBytes > 0 {
		st.wroteBytes.Add(uint64(res.WrittenBytes))
	}
	if r.obs != nil {
		if res.ReadBytes > 0 && r.obs.readBytes != nil {
			r.obs.readBytes.Add(float64(res.ReadBytes))
		}
		if res.WrittenBytes > 0 && r.obs.wroteBytes != nil {
			r.obs.wroteBytes.Add(float64(res.WrittenBytes))
		}
		if res.Reads > 0 {
			r.obs.reads.Add(float64(res.Reads))
		}
		if res.Writes > 0 {
			r.obs.writes.Add(float64(res.Writes))
		}
		if res.Other > 0 {
			r.obs.others.Add(float64(res.Other))
		}
	}
}

// record counts one attempt's outcome exactly once, in the summary and in
// Prometheus at the same place, so the two always agree.
func (r *run) record(st *termStats, ti, o int, lat time.Duration) {
	ts := &st.types[ti]
	ts.out[o].Add(1)
	completed := o == oCommitted || o == oRollback
	if completed {
		ts.observe(lat)
	}
	if r.obs != nil {
		to := &r.obs.types[ti]
		to.out[o].Inc()
		if completed {
			to.dur.Observe(lat.Seconds())
		}
	}
}

// report prints a line every ReportInterval until done.
func (r *run) report(start time.Time, done <-chan struct{}) {
	cfg := &r.cfg
	tick := time.NewTicker(cfg.ReportInterval)
	defer tick.Stop()
	prev := takeSnapshot(start, r.terms, len(r.types))
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		cur := takeSnapshot(cfg.Clock.Now(), r.terms, len(r.types))
		line := intervalLine(prev, cur, start, int(r.active.Load()), cfg.Percentile)
		if cfg.Report.IO {
			line = fileioLine(prev, cur, start, cfg.Percentile)
		}
		fmt.Fprintf(cfg.Out, "%s%s\n", cfg.LinePrefix, line)
		if l, ok := connFailLine(prev, cur, start); ok {
			fmt.Fprintf(cfg.Out, "%s%s\n", cfg.LinePrefix, l)
		}
		if r.sched != nil {
			fmt.Fprintf(cfg.Out, "%s[ %ds ] queue length: %d, concurrency: %d\n", cfg.LinePrefix,
				int(cur.At.Sub(start).Round(time.Second).Seconds()), r.sched.Backlog(cur.At), r.active.Load())
		}
		prev = cur
	}
}

// sortedTypes lists type indexes in a stable order for summaries.
func sortedTypes(types []string) []int {
	idx := make([]int, len(types))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if types[a] < types[b] {
			return -1
		}
		if types[a] > types[b] {
			return 1
		}
		return 0
	})
	return idx
}

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
