package experiment

import (
	"context"
	"fmt"

	"github.com/walab/walab/internal/fingerprint"
	"golang.org/x/sys/unix"
)

// fill is the drive's used ratio: the simulator's fill, else the used
// share of the data filesystems as df shows it (seed 000's df -h).
func (e *Executor) fill(ctx context.Context, c Check) (float64, string, error) {
	d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
	if d == nil {
		return 0, "", err
	}
	if d.Simulated {
		if d.Fill == nil {
			return 0, "", fmt.Errorf("simulated drive: fill not known: %v", err)
		}
		return *d.Fill, "simulated drive", nil
	}
	dirs, err := e.datadirs(ctx, c)
	if err != nil {
		return 0, "", err
	}
	if len(dirs) == 0 {
		return 0, "", fmt.Errorf("fill of a real drive: give the check targets or a path on its filesystem")
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dirs[0], &st); err != nil {
		return 0, "", err
	}
	f, ok := dfUse(st)
	if !ok {
		return 0, "", fmt.Errorf("%s: filesystem size 0", dirs[0])
	}
	return f, "filesystem of " + dirs[0], nil
}

// dfUse is the used share as df computes its Use%: used / (used +
// available to unprivileged users), so the blocks reserved for root count
// as neither (ext4 reserves 5 %).
func dfUse(st unix.Statfs_t) (float64, bool) {
	used := float64(st.Blocks - st.Bfree)
	total := used + float64(st.Bavail)
	if total <= 0 {
		return 0, false
	}
	return used / total, true
}

func (e *Executor) checkFill(ctx context.Context, c Check) (string, error) {
	f, src, err := e.fill(ctx, c)
	if err != nil {
		return "", err
	}
	if c.Min != nil && f < *c.Min || c.Max != nil && f > *c.Max {
		return "", fmt.Errorf("fill %.1f%% (%s) outside %s", 100*f, src, fillRange(c))
	}
	return fmt.Sprintf("fill %.1f%% (%s) within %s", 100*f, src, fillRange(c)), nil
}

func fillRange(c Check) string {
	lo, hi := "0%", "100%"
	if c.Min != nil {
		lo = fmt.Sprintf("%.0f%%", 100**c.Min)
	}
	if c.Max != nil {
		hi = fmt.Sprintf("%.0f%%", 100**c.Max)
	}
	return lo + ".." + hi
}

var fillCheck = checkKind{
	keys:     "min, max",
	needs:    needs{exporter: true, device: true},
	validate: validateFill,
	run:      func(e *Executor, ctx context.Context, c Check, _ *Run) (string, error) { return e.checkFill(ctx, c) },
}

func validateFill(_ *Plan, c Check) []string {
	var out []string
	if c.Min == nil && c.Max == nil {
		out = append(out, "min or max missing")
	}
	if c.Min != nil && c.Max != nil && *c.Min > *c.Max {
		out = append(out, fmt.Sprintf("min %v is above max %v", *c.Min, *c.Max))
	}
	for _, v := range []*float64{c.Min, c.Max} {
		if v != nil && (*v < 0 || *v > 1) {
			out = append(out, fmt.Sprintf("%v: fill is a ratio between 0 and 1", *v))
		}
	}
	return out
}
