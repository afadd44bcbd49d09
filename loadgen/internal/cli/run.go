package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/runner"
	"github.com/walab/walab/internal/workload"
)

// serveMetrics serves reg's /metrics on --web.listen-address until the
// returned stop is called.
func serveMetrics(f *flags, reg *prometheus.Registry, logger *slog.Logger) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := web.ListenAndServe(srv, f.web, logger); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics endpoint failed", "err", err)
		}
	}()
	return func() { srv.Close() }
}

func runPhase(ctx context.Context, f *flags, targets []*target, stdout, stderr io.Writer, logger *slog.Logger) (int, error) {
	if f.runID == "" {
		f.runID = newRunID()
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := runner.NewMetrics(reg)
	if !f.webDisable {
		defer serveMetrics(f, reg, logger)()
	}

	multi := len(targets) > 1
	var outMu sync.Mutex
	out := &lockedWriter{w: stdout, mu: &outMu}
	results := make([]*runner.Result, len(targets))
	err := forEach(targets, func(t *target) error {
		cfg := t.run
		cfg.RunID = f.runID
		cfg.Out, cfg.Metrics = out, metrics
		if multi {
			cfg.LinePrefix = "[" + t.name + "] "
		}
		cfg.OnError = func(term int, class driver.Class, err error) {
			logger.Debug("transaction failed", "target", t.name, "terminal", term, "class", class.String(), "err", err)
		}
		name := ""
		if multi {
			name = t.name
		}
		var describe func(io.Writer)
		if d, ok := t.info().(workload.Describer); ok {
			describe = d.Describe
		}
		fmt.Fprint(out, runner.Banner(cfg.Threads, cfg.Rate, name, describe))
		res, err := runner.Run(ctx, cfg)
		if err != nil {
			return err
		}
		results[slices.Index(targets, t)] = res
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, r := range results {
		if multi {
			fmt.Fprintf(stdout, "\n== target %s ==\n", r.Target)
		}
		r.WriteSummary(stdout)
	}
	if f.resultJSON != "" {
		if err := runner.WriteJSON(f.resultJSON, results); err != nil {
			return 0, err
		}
	}
	return judgeRun(ctx.Err() != nil, limits{errorRate: f.run.maxErrorRate, unreachable: f.run.maxUnreachable}, results, stderr), nil
}

// limits are the shares of a run that may fail (--max-error-rate) or find
// its target unreachable (--max-unreachable).
type limits struct{ errorRate, unreachable float64 }

// judgeRun is the run's exit code: 1 when a target completed no
// transaction (the run measured nothing, and the reason is on w), or
// failed more than the error-rate limit of its attempts, or had terminals
// that never connected; exitUnreachable when a target was unreachable for
// more than the unreachable limit of the run (it wins over 1: the run is not
// a measurement of the load asked for). An interrupted run is 0.
func judgeRun(interrupted bool, lim limits, results []*runner.Result, w io.Writer) int {
	if interrupted {
		return 0
	}
	code := 0
	for _, r := range results {
		attempts := r.Transactions + r.Errors
		switch {
		case r.Transactions == 0:
			fmt.Fprintf(w, "loadgen: target %s: no transaction completed in %.0fs (%d failed attempts, %d failed connection attempts, %d reconnects): the run measured nothing\n",
				r.Target, r.TotalSeconds, r.Errors, r.ConnFailures, r.Reconnects)
			code = max(code, 1)
		case lim.unreachable < 1 && r.UnreachableSeconds > lim.unreachable*r.TotalSeconds:
			fmt.Fprintf(w, "loadgen: target %s: unreachable for %.1fs of %.1fs (%.1f%%), more than --max-unreachable %g (%g%%): %d failed connection attempts; the run does not measure the load asked for\n",
				r.Target, r.UnreachableSeconds, r.TotalSeconds, 100*r.UnreachableSeconds/max(r.TotalSeconds, 1e-9), lim.unreachable, 100*lim.unreachable, r.ConnFailures)
			code = exitUnreachable
		case lim.errorRate < 1 && float64(r.Errors) > lim.errorRate*float64(attempts):
			fmt.Fprintf(w, "loadgen: target %s: %d of %d attempts failed (%.3g%%), more than --max-error-rate %g (%g%%)\n",
				r.Target, r.Errors, attempts, 100*float64(r.Errors)/float64(attempts), lim.errorRate, 100*lim.errorRate)
			code = max(code, 1)
		case r.NeverConnectedTotal() > 0:
			fmt.Fprintf(w, "loadgen: target %s: %d of %d terminals never connected: the run did not offer the load asked for (see the summary)\n",
				r.Target, r.NeverConnectedTotal(), r.Threads)
			code = max(code, 1)
		}
	}
	return code
}
