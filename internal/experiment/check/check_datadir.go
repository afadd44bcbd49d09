package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/fingerprint"
)

// checkDatadir: the data directory's filesystem on the database host is
// backed by the drive under test, through partitions, dm and md at any
// depth (the exporter's host facts). On the simulated drive there is no
// block device to compare: the check then verifies that the directory is
// on the database host and that the exporter's device is the simulator,
// and says so.
func (e *Env) checkDatadir(ctx context.Context, c plan.Check) (string, error) {
	f, dirs, mounts, err := e.dirMounts(ctx, c)
	if err != nil {
		return "", err
	}
	d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
	if d == nil {
		return "", err
	}
	var found []string
	for i, m := range mounts {
		dir := dirs[i]
		if d.Simulated {
			found = append(found, fmt.Sprintf("%s on %s: %s (%s); drive %s is simulated: no block device backs it, so only the directory's presence on the database host is checked", dir, f.Hostname, m.Source, m.FSType, e.Plan.Device))
			continue
		}
		if !slices.Contains(m.Controllers, e.Plan.Device) && !slices.Contains(m.Disks, e.Plan.Device) {
			return "", fmt.Errorf("data directory %s on %s is on %s (stack %s, disks %s), not on the drive under test %s",
				dir, f.Hostname, m.Source, strings.Join(m.Stack, " → "), strings.Join(m.Disks, ","), e.Plan.Device)
		}
		found = append(found, fmt.Sprintf("%s on %s: %s → %s (serial %s)", dir, f.Hostname, strings.Join(m.Stack, " → "), e.Plan.Device, orUnknown(d.Serial)))
	}
	return strings.Join(found, "; "), nil
}

var datadirCheck = checkKind{
	keys:     "targets or path",
	needs:    needs{exporter: true, device: true},
	validate: needDirs,
	run:      runOf((*Env).checkDatadir),
}

func init() { register("datadir", datadirCheck) }

// needDirs: a check that looks at data directories names targets or a path.
func needDirs(_ *plan.Plan, c plan.Check) []string {
	return need(len(c.Targets) != 0 || c.Path != "", "targets or path missing")
}
