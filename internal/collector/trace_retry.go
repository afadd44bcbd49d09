package collector

import (
	"errors"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/nvmetrace"
)

// countTracer is a BPF tracer a collector reads: T opens it on tracefs,
// Counts reads what it counted since.
type countTracer[N any] interface {
	comparable
	Counts() ([]N, error)
}

// tracerSlot is what the BPF tracers' collectors (placement_trace,
// io_size) share: their tracer, opened at the first scrape and tried again
// every traceRetry while it cannot run, and the series that say whether
// it runs. Its owner holds a lock around counts.
type tracerSlot[T countTracer[N], N any] struct {
	tracefs          string
	open             func(tracefs string) (T, error)
	attached, cannot string // the log lines of an open that succeeds, fails
	up, why          *prometheus.Desc
	logger           *slog.Logger

	tracer T // the zero T (nil) while none runs
	tries  tracerTries
}

// on is the slot on env's host, its tracer's tracefs the configured one
// ("": <sysfs>/kernel/tracing).
func (s tracerSlot[T, N]) on(env Env, tracefs string) tracerSlot[T, N] {
	if tracefs == "" {
		tracefs = filepath.Join(env.Paths.SysFS, "kernel", "tracing")
	}
	s.tracefs, s.logger = tracefs, env.log()
	return s
}

// counts opens the tracer if none runs and reads its counts. Without
// counts it sends up 0 and the reason, and returns the read's error (ok
// false); with them, the caller sends up 1.
func (s *tracerSlot[T, N]) counts(ch chan<- prometheus.Metric) (counts []N, ok bool, err error) {
	var none T
	s.tries.start(s.tracer != none, func() error {
		t, err := s.open(s.tracefs)
		if err == nil {
			s.tracer = t
		}
		return err
	}, s.logger, s.attached, s.cannot)
	if s.tracer == none {
		down(ch, s.up, s.why, s.tries.lastErr.Reason)
		return nil, false, nil
	}
	if counts, err = s.tracer.Counts(); err != nil {
		down(ch, s.up, s.why, nvmetrace.ReasonOther)
		return nil, false, err
	}
	return counts, true, nil
}

// tracerTries is what a tracerSlot keeps between tries to open its
// tracer: when it last tried, and why it failed.
type tracerTries struct {
	lastErr *nvmetrace.Error
	lastTry time.Time
}

// start calls open unless a tracer runs or the last try was less than
// traceRetry ago (the driver may load later). A success is logged as
// attached; a failure is kept and logged as cannot when its reason changes.
func (r *tracerTries) start(running bool, open func() error, logger *slog.Logger, attached, cannot string) {
	if running || (!r.lastTry.IsZero() && time.Since(r.lastTry) < traceRetry) {
		return
	}
	r.lastTry = time.Now()
	err := open()
	if err == nil {
		r.lastErr = nil
		logger.Info(attached)
		return
	}
	var te *nvmetrace.Error
	if !errors.As(err, &te) {
		te = &nvmetrace.Error{Reason: nvmetrace.ReasonOther, Err: err}
	}
	if r.lastErr == nil || r.lastErr.Reason != te.Reason {
		logger.Warn(cannot, "reason", te.Reason, "err", te.Err)
	}
	r.lastErr = te
}

// down sends a tracer's up 0 and the reason it does not run.
func down(ch chan<- prometheus.Metric, up, why *prometheus.Desc, reason string) {
	ch <- prometheus.MustNewConstMetric(up, prometheus.GaugeValue, 0)
	ch <- prometheus.MustNewConstMetric(why, prometheus.GaugeValue, 1, reason)
}
