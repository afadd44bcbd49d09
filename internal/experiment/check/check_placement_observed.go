package check

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/fingerprint"
)

// Handle expectations of the placement check's observation (key handles):
// the targets' namespaces share one reclaim unit handle, each has its own,
// or the run's scenario decides (baseline shared, any other separate).
const (
	handlesShared   = "shared"
	handlesSeparate = "separate"
	handlesRun      = "run"
)

// wantSeparate: whether the targets' writes must reach handles of their own.
func wantSeparate(c plan.Check, run *plan.Run) bool {
	if c.Handles == handlesRun {
		return run.ScenarioLabel() != "baseline"
	}
	return c.Handles == handlesSeparate
}

// observePlacement says where the targets' writes went, from the drive's
// own pages: each target's datadir → its namespace → the reclaim unit
// handles the FDP events log names for that namespace, and the bytes each
// namespace took (its own SMART log).
func (e *Env) observePlacement(ctx context.Context, c plan.Check, run *plan.Run, d *fingerprint.Drive) (string, error) {
	_, dirs, mounts, err := e.dirMounts(ctx, c)
	if err != nil {
		return "", err
	}
	nss := make([]string, len(mounts))
	for i, m := range mounts {
		nss[i] = namespaceOf(m.Disks, e.Plan.Device)
	}
	return judgeHandles(c, run, dirs, nss, d)
}

// judgeHandles: target i (datadir dirs[i]) is on namespace nss[i]. With
// c.Handles set it fails when a target's handles are not seen, or when the
// targets share a handle where each should have its own (or do not where
// they should share one); without, it says what it saw.
func judgeHandles(c plan.Check, run *plan.Run, dirs, nss []string, d *fingerprint.Drive) (string, error) {
	var said, unseen []string
	used := map[int][]string{} // handle → the targets whose namespace used it
	for i, ns := range nss {
		hs := d.NamespaceHandles[ns]
		line := fmt.Sprintf("%s (%s) on %s", c.Targets[i], dirs[i], orUnknown(ns))
		if len(hs) == 0 {
			unseen = append(unseen, orUnknown(ns))
			line += " → no handle in the FDP events log"
		} else {
			line += " → handle " + joinInts(hs)
		}
		for _, h := range hs {
			used[h] = append(used[h], c.Targets[i])
		}
		said = append(said, line)
	}
	msg := "observed: " + strings.Join(said, ", ") + namespaceBytes(d)
	if c.Handles == "" {
		return msg, nil
	}
	if len(unseen) > 0 {
		return "", fmt.Errorf("%s; not observed: the drive's FDP events name no handle for %s (events are logged only for the types the host enabled, Set Features 0x1E, and only the latest are kept)", msg, strings.Join(unseen, ", "))
	}
	shared := false
	for _, ts := range used {
		shared = shared || len(ts) > 1
	}
	sep := wantSeparate(c, run)
	switch {
	case sep && shared:
		return "", fmt.Errorf("%s; the targets' writes share a reclaim unit handle where scenario %s wants one each", msg, run.ScenarioLabel())
	case !sep && !shared:
		return "", fmt.Errorf("%s; the targets' writes reach no common reclaim unit handle where scenario %s wants them on one", msg, run.ScenarioLabel())
	case sep:
		return msg + fmt.Sprintf("; a handle each (scenario %s)", run.ScenarioLabel()), nil
	}
	return msg + fmt.Sprintf("; one handle shared (scenario %s)", run.ScenarioLabel()), nil
}

// namespaceOf is the disk of disks that is a namespace of the controller
// device ("nvme0n2" of "nvme0"), or "" when none is.
func namespaceOf(disks []string, device string) string {
	for _, d := range disks {
		if rest, ok := strings.CutPrefix(d, device+"n"); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return d
		}
	}
	return ""
}

// namespaceBytes: each namespace's written bytes as its SMART log says.
func namespaceBytes(d *fingerprint.Drive) string {
	if len(d.NamespaceWritten) == 0 {
		return ""
	}
	var parts []string
	for _, ns := range slices.Sorted(maps.Keys(d.NamespaceWritten)) {
		parts = append(parts, fmt.Sprintf("%s %.1f MiB", ns, d.NamespaceWritten[ns]/(1<<20)))
	}
	return "; written since the drive started (its per-namespace SMART): " + strings.Join(parts, ", ")
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

// filePlacementNote says, with walab's filesystem's device backend
// writing the drive (docs/placement-files.md), its policy and which
// placement handles each file class's bytes carried so far.
func filePlacementNote(d *fingerprint.Drive) string {
	if d.FilePlacement == "" {
		return ""
	}
	var classes []string
	for _, c := range slices.Sorted(maps.Keys(d.FileClassHandles)) {
		classes = append(classes, fmt.Sprintf("%s on %v", c, d.FileClassHandles[c]))
	}
	n := "files placed by walab's filesystem (" + d.FilePlacement + ")"
	if len(classes) > 0 {
		n += ": " + strings.Join(classes, ", ")
	}
	return n
}
