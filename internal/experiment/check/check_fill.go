package check

import (
	"context"
	"fmt"
	"regexp"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/fingerprint"
)

// fill is the drive's used ratio: the simulator's fill, else the used
// share of the data filesystems (seed 000's df -h).
func (e *Env) fill(ctx context.Context, c plan.Check) (float64, string, error) {
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
	if len(c.Targets) == 0 && c.Path == "" {
		return 0, "", fmt.Errorf("fill of a real drive: give the check targets or a path on its filesystem")
	}
	f, dirs, mounts, err := e.dirMounts(ctx, c)
	if err != nil {
		return 0, "", err
	}
	// df's fill, used / (used + available), as the exporter computes it.
	if mounts[0].Fill == nil {
		return 0, "", fmt.Errorf("%s on %s: fill not known (statfs of %s failed on the database host)", dirs[0], f.Hostname, mounts[0].MountPoint)
	}
	return *mounts[0].Fill, "filesystem of " + dirs[0] + " on " + f.Hostname, nil
}

func (e *Env) checkFill(ctx context.Context, c plan.Check) (string, error) {
	f, src, err := e.fill(ctx, c)
	if err != nil {
		return "", err
	}
	if c.Min != nil && f < *c.Min || c.Max != nil && f > *c.Max {
		return "", fmt.Errorf("fill %.1f%% (%s) outside %s", 100*f, src, fillRange(c))
	}
	return fmt.Sprintf("fill %.1f%% (%s) within %s", 100*f, src, fillRange(c)), nil
}

func fillRange(c plan.Check) string {
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
	run:      runOf((*Env).checkFill),
}

func init() { register("fill", fillCheck) }

// realDrive matches the kernel's name of an NVMe controller or namespace:
// a plan whose device is one measures a real drive, whose fill comes from
// the filesystem of the data (the simulator's drives are nvmesim0, ...).
var realDrive = regexp.MustCompile(`^nvme[0-9]+(n[0-9]+)?$`)

func validateFill(p *plan.Plan, c plan.Check) []string {
	var out []string
	if realDrive.MatchString(p.Device) && len(c.Targets) == 0 && c.Path == "" {
		out = append(out, fmt.Sprintf("device %s is a real drive: its fill is df's of the data's filesystem, so give targets (their datadirs) or path", p.Device))
	}
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
