package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/runner"
	"github.com/walab/walab/internal/workload"
)

// execute resolves the targets and runs one phase (prepare, run, check,
// cleanup) on all of them; it returns the exit code.
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

// isTTY reports whether w is a terminal.
func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// newRunID names a run: its start in UTC and six random hex digits.
func newRunID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}
