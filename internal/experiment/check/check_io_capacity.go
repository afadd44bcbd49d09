package check

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
)

// errNotRun: the check cannot be answered yet for this run, so it is not
// run (and nothing is recorded), rather than passed or failed on nothing.
var errNotRun = errors.New("not run")

// Seed 004 sets innodb_io_capacity to about half the IOPS the disk
// measured ("一般来说就用硬盘的 iops / 2的值"; MySQL's default 200 is why
// an SSD can still seem slow). The check compares each target's
// innodb_io_capacity with half the mean IOPS of the plan's own run named
// by iops_from (fio: read + write + trim, or mixed, over its jobs; loadgen
// fileio: its events per second), over that run's counted repetitions.
// It passes when io_capacity / (IOPS / 2) is within [min, max] (default
// 0.5 .. 1.5). Before iops_from has a counted repetition it is not run.
var ioCapacityCheck = checkKind{
	keys: "targets, iops_from, min, max",
	validate: func(p *plan.Plan, c plan.Check) []string {
		var out []string
		if len(c.Targets) == 0 {
			out = append(out, "targets missing")
		}
		r := p.RunNamed(c.IOPSFrom)
		switch {
		case c.IOPSFrom == "":
			out = append(out, "iops_from missing: the plan's fio or loadgen fileio run whose IOPS io_capacity is held to")
		case r == nil:
			out = append(out, fmt.Sprintf("iops_from %q: no such run", c.IOPSFrom))
		case r.Fio == "" && r.Workload != "fileio":
			out = append(out, fmt.Sprintf("iops_from %q: not a fio or loadgen fileio run", c.IOPSFrom))
		}
		lo, hi := ioCapacityBounds(c)
		if lo <= 0 || hi < lo {
			out = append(out, fmt.Sprintf("min %v, max %v: want 0 < min <= max", lo, hi))
		}
		return out
	},
	run: func(e *Env, ctx context.Context, c plan.Check, run *plan.Run) (string, error) {
		return e.checkIOCapacity(ctx, c, run)
	},
}

func ioCapacityBounds(c plan.Check) (lo, hi float64) {
	lo, hi = 0.5, 1.5
	if c.Min != nil {
		lo = *c.Min
	}
	if c.Max != nil {
		hi = *c.Max
	}
	return lo, hi
}

func (e *Env) checkIOCapacity(ctx context.Context, c plan.Check, run *plan.Run) (string, error) {
	iops, n := e.measuredIOPS(c.IOPSFrom)
	if n == 0 {
		return "", fmt.Errorf("%w: run %s has measured no IOPS yet", errNotRun, c.IOPSFrom)
	}
	half := iops / 2
	lo, hi := ioCapacityBounds(c)
	var found, bad []string
	for _, name := range c.Targets {
		db, err := e.openTarget(name)
		if err != nil {
			return "", err
		}
		var capacity float64
		err = db.QueryRowContext(ctx, "SELECT @@innodb_io_capacity").Scan(&capacity)
		db.Close()
		if err != nil {
			return "", fmt.Errorf("target %s: innodb_io_capacity: %w", name, err)
		}
		line := fmt.Sprintf("%s: innodb_io_capacity %.0f is %.2f x half the %.0f IOPS %s measured (mean of %d)", name, capacity, capacity/half, iops, c.IOPSFrom, n)
		found = append(found, line)
		if r := capacity / half; r < lo || r > hi {
			bad = append(bad, line)
		}
	}
	if len(bad) > 0 {
		return "", fmt.Errorf("%s; want %.2f..%.2f x (seed 004: about half the disk's IOPS, %.0f)", strings.Join(bad, "; "), lo, hi, half)
	}
	return strings.Join(found, "; "), nil
}

// measuredIOPS is the mean IOPS of a run's counted repetitions, and how
// many there are.
func (e *Env) measuredIOPS(run string) (float64, int) {
	var vals []float64
	for _, r := range e.State.Runs {
		if r.Run != run {
			continue
		}
		switch {
		case r.Fio != nil:
			vals = append(vals, r.Fio.IOPS())
		case r.TPS != nil:
			vals = append(vals, *r.TPS) // fileio: one event per I/O (read, write or fsync)
		}
	}
	if len(vals) == 0 {
		return 0, 0
	}
	var sum float64
	for _, v := range vals {
		sum += v
	}
	return sum / float64(len(vals)), len(vals)
}
