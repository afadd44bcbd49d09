package cli

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/runner"
	"github.com/walab/walab/internal/workload"
)

// target is one resolved target with its workload.
type target struct {
	name  string
	dsn   string               // "" for a local workload, and until a props file is read
	props string               // the props file the target was given as ("" for none)
	file  *workload.TargetFile // props read; nil unless given as a file
	// The workload: local (wl) or on the database (sql, on db).
	wl     workload.Workload
	sql    workload.SQL
	db     *sql.DB
	stages workload.Stages // prepare, check and cleanup; nil when the workload has none
	// run is the runner's configuration, computed once (runConfig);
	// workers are prepare's loaders.
	run     runner.Config
	workers int
}

// conns is how many connections the target's phases hold at most.
func (t *target) conns() int { return max(t.run.Threads, t.workers) }

func execute(f *flags, c *command, phase string, stdout, stderr io.Writer, logger *slog.Logger) (int, error) {
	if f.run.seed == 0 {
		f.run.seed = uint64(time.Now().UnixNano())
	}
	targets, err := resolveTargets(f, c, stderr)
	if err != nil {
		return 0, err
	}
	plan := planConns(f, c.spec.Poller, targets, os.Getenv("GOMAXPROCS") != "", runtime.GOMAXPROCS(0), runtime.NumCPU())
	if plan.procs != runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(plan.procs) // the process's one place that sets it
	}
	defer func() {
		for _, t := range targets {
			if t.db != nil {
				t.db.Close()
			}
		}
	}()
	if err := openDBs(targets, plan); err != nil {
		return 0, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	switch phase {
	case "prepare":
		// A long load (seed 000: 4,050 warehouses) is watched from
		// Prometheus too, when the user names an address to serve it on
		// (a default port would collide between parallel prepares).
		var pm *runner.PrepareMetrics
		if f.webSet && !f.webDisable {
			reg := prometheus.NewRegistry()
			pm = runner.NewPrepareMetrics(reg)
			defer serveMetrics(f, reg, logger)()
		}
		return 0, forEach(targets, func(t *target) error { return prepare(ctx, t, c.spec.Name, stderr, len(targets) > 1, pm) })
	case "cleanup":
		return 0, forEach(targets, func(t *target) error { return t.stages.Cleanup(ctx) })
	case "check":
		return check(ctx, targets, stdout)
	case "run":
		return runPhase(ctx, f, targets, stdout, stderr, logger)
	}
	return 0, fmt.Errorf("unknown phase %q", phase)
}

func forEach(targets []*target, fn func(*target) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(targets))
	for i, t := range targets {
		wg.Go(func() {
			if err := fn(t); err != nil {
				errs[i] = fmt.Errorf("target %s: %w", t.name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// fileWorkloads names the workloads that take target files, for errors.
func fileWorkloads() string {
	var names []string
	for _, s := range workload.Specs() {
		if s.TargetFile != nil {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return "no workload"
	}
	return strings.Join(names, ", ") + " only"
}

// resolveTargets names the targets of the command line (--props, --target,
// or the connection flags; "local" for a local workload), reads their
// props files and builds each one's workload and run configuration. It
// opens nothing.
func resolveTargets(f *flags, c *command, stderr io.Writer) ([]*target, error) {
	if c.local() {
		if len(f.targets) > 0 || len(f.props) > 0 {
			return nil, fmt.Errorf("%s runs on the client alone: --target and --props do not apply", c.spec.Name)
		}
		t := &target{name: "local"}
		return []*target{t}, c.build(f, t)
	}
	out, err := namedTargets(f)
	if err != nil {
		return nil, err
	}
	for _, t := range out {
		if t.props != "" {
			if err := readProps(c, t, stderr); err != nil {
				return nil, err
			}
		}
		if err := c.build(f, t); err != nil {
			return nil, fmt.Errorf("target %s: %w", t.name, err)
		}
	}
	return out, nil
}

// namedTargets are the database targets the command line names, each once.
func namedTargets(f *flags) ([]*target, error) {
	var out []*target
	seen := map[string]bool{}
	add := func(t *target) error {
		if seen[t.name] {
			return fmt.Errorf("target name %q given twice", t.name)
		}
		seen[t.name] = true
		out = append(out, t)
		return nil
	}
	for _, p := range f.props {
		name := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		if err := add(&target{name: name, props: p}); err != nil {
			return nil, err
		}
	}
	for _, s := range f.targets {
		tg, err := driver.ParseTarget(s)
		if err != nil {
			return nil, err
		}
		if err := add(&target{name: tg.Name, dsn: tg.DSN, props: tg.Props}); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		dsn, err := f.conn.DSN()
		if err != nil {
			return nil, err
		}
		out = append(out, &target{name: "default", dsn: dsn})
	}
	return out, nil
}

// readProps reads the props file t was given as: its DSN and settings.
func readProps(c *command, t *target, stderr io.Writer) error {
	if c.spec.TargetFile == nil {
		return fmt.Errorf("target %s: a props file is for %s", t.name, fileWorkloads())
	}
	tf, err := c.spec.TargetFile(t.props)
	if err != nil {
		return fmt.Errorf("target %s: %w", t.name, err)
	}
	for _, w := range tf.Warnings {
		fmt.Fprintf(stderr, "target %s: %s: %s\n", t.name, t.props, w)
	}
	t.file, t.dsn = tf, tf.DSN
	return nil
}

// connPlan is how a run's connections are opened: blocking sockets or
// Go's poller, the driver's options and the Ps (GOMAXPROCS) the process
// needs for them, which execute applies.
type connPlan struct {
	blocking bool
	opts     driver.Options
	procs    int
}

// planConns decides how the targets' connections read (blockingFor, then
// rawReadPlan) given the process's procs, whether the user set them, the
// CPUs and whether the workload prefers the poller (workload.Spec.Poller).
func planConns(f *flags, poller bool, targets []*target, userSetProcs bool, procs, cpus int) connPlan {
	plan := connPlan{procs: procs}
	terminals, tcp := 0, false
	for _, t := range targets {
		if t.sql != nil {
			terminals += t.conns()
			tcp = tcp || driver.BlockingSocket(t.dsn)
		}
	}
	plan.blocking = f.blockingIO
	if !f.blockingIOSet {
		plan.blocking = blockingFor(poller, terminals, cpus)
	}
	if plan.blocking && tcp {
		plan.opts.RawReadWait, plan.procs = rawReadPlan(f.rawReadWait, terminals, userSetProcs, procs)
	}
	return plan
}

// maxBlockingTerminalsPerCPU bounds the terminals per CPU for which
// blocking sockets are the default. Measured with loadgen alone on a
// 2-core machine (docs/loadgen.md, "Blocking sockets or the poller"):
// oltp_read_write at 8 terminals 502-554 us of client CPU per transaction
// with blocking sockets against 594-609 us with the poller; at 64
// terminals 732-786 against 480-577 us.
const maxBlockingTerminalsPerCPU = 4

// blockingFor is the default of --mysql-blocking-io: blocking sockets pay
// when each terminal's reply comes soon and the terminals are few beside
// the CPUs, so that a terminal keeps its thread (and, with raw reads, its
// P) through the wait; with many terminals, or a workload whose terminals
// wait on the server for long (Spec.Poller), a thread per waiting terminal
// costs more in switches than the poller's one epoll_pwait for many.
func blockingFor(poller bool, terminals, cpus int) bool {
	return !poller && terminals <= maxBlockingTerminalsPerCPU*max(cpus, 1)
}

// openDBs opens the connection pool of every database target, sized for
// its phases.
func openDBs(targets []*target, plan connPlan) error {
	for _, t := range targets {
		if t.sql == nil {
			continue
		}
		var err error
		if plan.blocking {
			t.db, err = driver.OpenDB(t.dsn, plan.opts)
		} else {
			t.db, err = sql.Open("mysql", t.dsn)
		}
		if err != nil {
			return fmt.Errorf("target %s: %w", t.name, err)
		}
		n := t.conns() + 2
		t.db.SetMaxOpenConns(n)
		t.db.SetMaxIdleConns(n)
		t.run.DB = t.db
		t.stages = workload.OnDB(t.sql, t.db)
	}
	return nil
}

// maxRawReadProcs bounds the Ps loadgen asks for so that every terminal
// can hold one through a raw read (driver.Options.RawReadWait); with more
// terminals than that, reads go through the runtime.
const maxRawReadProcs = 256

// rawReadPlan decides the raw read wait of a run's connections and the Ps
// (GOMAXPROCS) the process needs for it. A terminal in a raw read holds its
// P, so raw reads need a P per terminal, one for the runner and one for
// the garbage collector; with fewer, terminals would queue for Ps and the
// server would see less concurrency than asked for. procs is raised when
// the user did not set GOMAXPROCS, up to maxRawReadProcs; otherwise reads
// go through the runtime (wait 0).
func rawReadPlan(wait time.Duration, terminals int, userSetProcs bool, procs int) (time.Duration, int) {
	need := terminals + 2
	switch {
	case wait <= 0:
		return 0, procs
	case procs >= need:
		return wait, procs
	case userSetProcs || need > maxRawReadProcs:
		return 0, procs
	}
	return wait, need
}

// ensureDatabase creates the DSN's database when missing, so prepare
// works on a fresh server.
func ensureDatabase(ctx context.Context, dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil || cfg.DBName == "" {
		return err
	}
	name := cfg.DBName
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+strings.ReplaceAll(name, "`", "``")+"`")
	return err
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// prepareWorkers is --threads, or the target file's loaders when --threads
// is not given.
func prepareWorkers(f *flags, t *target) int {
	if t.file != nil && t.file.LoadWorkers > 0 && !f.run.threadsF.Set {
		return t.file.LoadWorkers
	}
	return f.run.threads
}

func prepare(ctx context.Context, t *target, wl string, stderr io.Writer, multi bool, pm *runner.PrepareMetrics) error {
	if t.db != nil {
		if err := ensureDatabase(ctx, t.dsn); err != nil {
			return err
		}
	}
	workers := t.workers
	prefix := ""
	if multi {
		prefix = "[" + t.name + "] "
	}
	fmt.Fprintf(stderr, "%sloading %s with %d workers\n", prefix, wl, workers)
	p := runner.NewProgress(stderr, isTTY(stderr) && !multi, prefix, nil)
	update := p.Update
	if pm != nil {
		update = func(e workload.ProgressEvent) {
			pm.Observe(t.name, e)
			p.Update(e)
		}
	}
	err := t.stages.Prepare(ctx, workload.PrepareOptions{Workers: workers, Progress: update})
	p.Done()
	return err
}

func check(ctx context.Context, targets []*target, stdout io.Writer) (int, error) {
	failed := false
	for _, t := range targets {
		res, err := t.stages.Check(ctx)
		for _, c := range res {
			status := "PASS"
			if !c.Passed {
				status, failed = "FAIL", true
			}
			fmt.Fprintf(stdout, "[%s] %s %s: %s\n", t.name, status, c.Name, c.Detail)
		}
		if err != nil {
			return 0, fmt.Errorf("target %s: %w", t.name, err)
		}
	}
	if failed {
		return 1, nil
	}
	return 0, nil
}

func newRunID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

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

// runConfig is the runner's configuration for t (without its DB, run id
// and outputs): the runner flags, under the target file's settings where
// the user gave no flag, under the workload's own settings (tpcc
// --terminals).
func runConfig(f *flags, c *command, t *target) runner.Config {
	r := &f.run
	cfg := runner.Config{
		Target: t.name, Workload: t.wl, SQL: t.sql, Report: c.spec.Report, Threads: r.threads,
		Duration: time.Duration(r.timeSec) * time.Second, Events: r.events, Rate: r.rate,
		ReportInterval: time.Duration(r.reportInterval) * time.Second, Percentile: r.percentile,
		Scenario: f.scenario, Seed: r.seed, MaxRetries: r.maxRetries, DrainTimeout: r.drainTimeout,
	}
	var perThread int64
	if t.file != nil {
		o := t.file.Run
		if o.Threads > 0 && !r.threadsF.Set {
			cfg.Threads = o.Threads
		}
		if o.Duration > 0 && !r.timeF.Set {
			cfg.Duration = o.Duration
		}
		if o.EventsPerThread > 0 && !r.timeF.Set && !r.eventsF.Set {
			cfg.Duration, perThread = 0, o.EventsPerThread
		}
		if o.Rate > 0 && !r.rateF.Set {
			cfg.Rate = o.Rate
		}
	}
	if ro, ok := t.info().(workload.RunOptioner); ok {
		o := ro.RunOptions()
		if o.Threads > 0 {
			cfg.Threads = o.Threads
		}
		if o.Duration > 0 {
			cfg.Duration = o.Duration
		}
		if o.EventsPerThread > 0 {
			cfg.Duration, perThread = 0, o.EventsPerThread
		}
		if o.Rate > 0 {
			cfg.Rate = o.Rate
		}
		if perThread > 0 {
			cfg.Events = perThread * int64(cfg.Threads)
			perThread = 0
		}
		if o.MaxEvents > 0 && (cfg.Events == 0 || o.MaxEvents < cfg.Events) {
			cfg.Events = o.MaxEvents
		}
	}
	if perThread > 0 {
		cfg.Events = perThread * int64(cfg.Threads)
	}
	return cfg
}
