package collector

import (
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/nvmetrace"
)

// tracerTries is what the BPF tracers' collectors (placement_trace,
// io_size) keep between tries to open their tracer: when they last tried,
// and why it failed.
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
