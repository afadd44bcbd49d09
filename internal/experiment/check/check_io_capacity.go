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
// an SSD can still seem slow), the disk's IOPS being what its test reached:
// the peak of a thread sweep, not its mean. The check compares each
// target's innodb_io_capacity with half the write IOPS of the plan's own
// run named by iops_from (InnoDB's io_capacity budgets its page writes):
// fio's write IOPS over its jobs, or loadgen fileio's write requests per
// second, its fsyncs not counted. Repetitions at one thread count are
// averaged, and the sweep's peak is taken. It passes when io_capacity /
// (IOPS / 2) is within [min, max] (default 0.5 .. 1.5). Before iops_from
// has a counted repetition with a write figure it is not run.
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

func init() { register("io_capacity", ioCapacityCheck) }

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
	m, ok := e.measuredWriteIOPS(c.IOPSFrom)
	if !ok {
		return "", fmt.Errorf("%w: run %s has measured no write IOPS yet", errNotRun, c.IOPSFrom)
	}
	half := m.iops / 2
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
		line := fmt.Sprintf("%s: innodb_io_capacity %.0f is %.2f x half the %.0f write IOPS %s measured (%s)", name, capacity, capacity/half, m.iops, c.IOPSFrom, m)
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

// writeIOPS is a run's write IOPS at its peak: the mean of the
// repetitions at the sweep's best thread count.
type writeIOPS struct {
	iops    float64
	threads int // 0: the run has no sweep
	reps    int // repetitions averaged at that count
	points  int // thread counts measured
}

func (w writeIOPS) String() string {
	if w.points <= 1 && w.threads == 0 {
		return fmt.Sprintf("mean of %d", w.reps)
	}
	return fmt.Sprintf("the peak of %d thread counts, at %d threads, mean of %d", w.points, w.threads, w.reps)
}

// measuredWriteIOPS is the write IOPS of a run's counted repetitions,
// averaged per thread count, at the sweep's peak; false when no
// repetition has a write figure.
func (e *Env) measuredWriteIOPS(run string) (writeIOPS, bool) {
	sums, counts := map[int]float64{}, map[int]int{}
	for _, r := range e.State.Runs {
		if r.Run != run {
			continue
		}
		var v float64
		var ok bool
		switch {
		case r.Fio != nil:
			v, ok = r.Fio.WriteIOPS()
		case r.WriteIOPS != nil:
			v, ok = *r.WriteIOPS, true
		}
		if ok {
			sums[r.Threads] += v
			counts[r.Threads]++
		}
	}
	var best writeIOPS
	for th, n := range counts {
		if mean := sums[th] / float64(n); best.reps == 0 || mean > best.iops || mean == best.iops && th < best.threads {
			best = writeIOPS{iops: mean, threads: th, reps: n}
		}
	}
	best.points = len(counts)
	return best, best.reps > 0
}
