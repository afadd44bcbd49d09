package cli

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

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

// forEach runs fn on every target at once and joins their errors, each
// named by its target.
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

// prepareWorkers is --threads, or the target file's loaders when --threads
// is not given.
func prepareWorkers(f *flags, t *target) int {
	if t.file != nil && t.file.LoadWorkers > 0 && !f.run.threadsF.Set {
		return t.file.LoadWorkers
	}
	return f.run.threads
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
