// Package runner drives a workload against one target: a local
// workload.Workload on the client alone, or a workload.SQL wrapped in
// terminals with their own connections; pacing by an intended-start schedule, retries
// of deadlocks and lock wait timeouts, reconnects with backoff, metrics,
// sysbench-style report lines, and the final summary.
package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/workload"
)

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
