package check

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/promql"
)

// SetupKey is the part of a reset or checks item's ID that names its run's
// set-up in its cycle ("baseline/", "baseline/c2/").
func SetupKey(id string) string {
	for _, ph := range []string{plan.PhaseReset + "/", plan.PhaseChecks} {
		if i := strings.LastIndex(id, ph); i >= 0 {
			return id[:i]
		}
	}
	return id
}

// SnapshotDiscard records the discard counters before a run's first
// reset step, for the discard check.
func (e *Env) SnapshotDiscard(ctx context.Context, it plan.Item) {
	if it.Phase != plan.PhaseReset || e.Plan.DBExporter() == "" || !strings.HasSuffix(it.ID, plan.PhaseReset+"/1") && !strings.Contains(it.ID, plan.PhaseReset+"/1-") {
		return
	}
	snap := &state.DiscardSnapshot{At: time.Now().UTC()}
	b, err := e.discarded(ctx)
	if err != nil {
		snap.Error = err.Error()
	}
	snap.Bytes = b
	if e.State.ResetDiscard == nil {
		e.State.ResetDiscard = map[string]*state.DiscardSnapshot{}
	}
	e.State.ResetDiscard[SetupKey(it.ID)] = snap
}

// discarded reads every block device's discard counter from the database
// host's exporter.
func (e *Env) discarded(ctx context.Context) (map[string]float64, error) {
	fams, err := fingerprint.Scrape(ctx, e.client(), e.Plan.DBExporter()+"/metrics")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range fams.All(promql.BlockdevDiscardedBytes, nil) {
		out[s.Labels["device"]] = s.Value
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the exporter reports no %s (a kernel before 4.18, or no block device under its data directories)", promql.BlockdevDiscardedBytes)
	}
	return out, nil
}

// checkDiscard: the run's reset discarded the disks under the data
// directory's filesystem: their discard counters moved, between the start
// of the reset and now, by at least min (default 0.9) times the
// filesystem's size. Seed 000's mkfs discards the whole drive before every
// run, which resets the FTL; a reset that did not reach the drive starts
// the arm from another state.
func (e *Env) checkDiscard(ctx context.Context, c plan.Check, _ *plan.Run, key string) (string, error) {
	snap := e.State.ResetDiscard[key]
	if snap == nil {
		return "", fmt.Errorf("no discard counters from before this run's reset (the plan's reset did not run in this experiment)")
	}
	if snap.Error != "" {
		return "", fmt.Errorf("discard counters before the reset not read: %s", snap.Error)
	}
	f, dirs, mounts, err := e.dirMounts(ctx, c)
	if err != nil {
		return "", err
	}
	now, err := e.discarded(ctx)
	if err != nil {
		return "", err
	}
	share := 0.9
	if c.Min != nil {
		share = *c.Min
	}
	var found []string
	for i, m := range mounts {
		if m.SizeBytes == nil {
			return "", fmt.Errorf("%s on %s: filesystem size not known (statfs failed)", dirs[i], f.Hostname)
		}
		moved, parts, err := discardMoved(snap.Bytes, now, m.Disks)
		if err != nil {
			return "", fmt.Errorf("%s on %s: %w", dirs[i], f.Hostname, err)
		}
		for _, d := range m.Disks {
			if snap.Moved == nil {
				snap.Moved = map[string]float64{}
			}
			snap.Moved[d] = now[d] - snap.Bytes[d]
		}
		msg := fmt.Sprintf("%s on %s: reset discarded %s (%s) of a %s filesystem", dirs[i], f.Hostname, gib(moved), parts, gib(float64(*m.SizeBytes)))
		if moved < share*float64(*m.SizeBytes) {
			return "", fmt.Errorf("%s, less than %.0f%% of it: the reset's mkfs did not discard the drive (mkfs.xfs -K, mkfs.ext4 -E nodiscard, or a device without discard)", msg, 100*share)
		}
		found = append(found, msg)
	}
	return strings.Join(found, "; "), nil
}

// discardMoved sums the disks' counter moves; a disk without both values
// is an error, a counter that went back (a reboot) too.
func discardMoved(before, after map[string]float64, disks []string) (float64, string, error) {
	if len(disks) == 0 {
		return 0, "", fmt.Errorf("no disk under the filesystem")
	}
	var sum float64
	var parts []string
	sort.Strings(disks)
	for _, d := range disks {
		b, okb := before[d]
		a, oka := after[d]
		if !okb || !oka {
			return 0, "", fmt.Errorf("no discard counter of %s before and after the reset", d)
		}
		if a < b {
			return 0, "", fmt.Errorf("%s's discard counter went back (%.0f to %.0f bytes): the host restarted during the reset", d, b, a)
		}
		sum += a - b
		parts = append(parts, fmt.Sprintf("%s %s", d, gib(a-b)))
	}
	return sum, strings.Join(parts, ", "), nil
}

func gib(b float64) string { return fmt.Sprintf("%.2f GiB", b/(1<<30)) }

func validateDiscard(p *plan.Plan, c plan.Check) []string {
	out := needDirs(p, c)
	if len(p.Reset) == 0 {
		out = append(out, "needs the plan's reset: it compares the discard counters from before the reset's first step")
	}
	if c.Min != nil && (*c.Min <= 0 || *c.Min > 1) {
		out = append(out, fmt.Sprintf("min %v: the share of the filesystem's size the reset must discard, above 0 and at most 1", *c.Min))
	}
	return out
}

var discardCheck = checkKind{
	keys:     "targets or path, min",
	needs:    needs{exporter: true},
	validate: validateDiscard,
	run: func(e *Env, ctx context.Context, c plan.Check, run *plan.Run) (string, error) {
		return e.checkDiscard(ctx, c, run, e.Setup)
	},
}

func init() { register("discard", discardCheck) }
