package experiment

import (
	"context"
	"fmt"
	"strings"

	"github.com/walab/walab/internal/fingerprint"
)

// checkDatadir: the data directory's filesystem is backed by the namespace
// of the drive under test. On the simulated drive there is no block device
// to compare: the check then verifies that the directory exists on this
// host and that the exporter's device is the simulator, and says so.
func (e *Executor) checkDatadir(ctx context.Context, c Check) (string, error) {
	dirs, err := e.datadirs(ctx, c)
	if err != nil {
		return "", err
	}
	simulated := false
	if e.Plan.Exporter != "" {
		d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
		if d == nil {
			return "", err
		}
		simulated = d.Simulated
	}
	var found []string
	for _, dir := range dirs {
		m, err := fingerprint.MountOf(dir)
		if err != nil {
			return "", fmt.Errorf("data directory %s is not on this host: %w", dir, err)
		}
		if simulated {
			found = append(found, fmt.Sprintf("%s on %s (%s); drive %s is simulated: no block device backs it, so only the directory's presence on this host is checked", dir, m.Source, m.FSType, e.Plan.Device))
			continue
		}
		blocks := []string{m.Block}
		if s := fingerprint.Slaves(m.Block); len(s) > 0 {
			blocks = s
		}
		ok := false
		for _, b := range blocks {
			if fingerprint.Controller(b) == e.Plan.Device {
				ok = true
			}
		}
		if !ok {
			return "", fmt.Errorf("data directory %s is on %s (block %s), not on the drive under test %s", dir, m.Source, strings.Join(blocks, ","), e.Plan.Device)
		}
		found = append(found, fmt.Sprintf("%s on %s (%s)", dir, m.Block, e.Plan.Device))
	}
	return strings.Join(found, "; "), nil
}

var datadirCheck = checkKind{
	keys:     "targets or path",
	needs:    needs{device: true},
	validate: needDirs,
	run:      func(e *Executor, ctx context.Context, c Check, _ *Run) (string, error) { return e.checkDatadir(ctx, c) },
}

// needDirs: a check that looks at data directories names targets or a path.
func needDirs(_ *Plan, c Check) []string {
	if len(c.Targets) == 0 && c.Path == "" {
		return []string{"targets or path missing"}
	}
	return nil
}
