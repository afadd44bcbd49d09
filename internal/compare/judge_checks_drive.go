package compare

import (
	"fmt"
	"math"

	"github.com/walab/walab/internal/promql"
)

// checkSameDrive accepts one identity (walab_nvme_info: serial, firmware)
// per device and run, the same in both runs.
func checkSameDrive(j *judgement) {
	b, c := j.b, j.c
	switch {
	case b.Identities > 0 || c.Identities > 0:
		j.add("same drive", Fail, "%d and %d identities (%s series) during the runs, where one per device is accepted: the drive changed mid-run, or the series are not one exporter's", max(b.Identities, 1), max(c.Identities, 1), promql.NVMeInfo)
	case b.Serial == "" || c.Serial == "":
		j.add("same drive", Unknown, "%s not found for both runs", promql.NVMeInfo)
	case b.Serial != c.Serial || b.Firmware != c.Firmware:
		st := Fail
		if j.o.Checks.AllowDifferentDevice {
			st = Pass
		}
		j.add("same drive", st, "serial %s firmware %s vs serial %s firmware %s", b.Serial, b.Firmware, c.Serial, c.Firmware)
	default:
		j.add("same drive", Pass, "serial %s firmware %s", b.Serial, b.Firmware)
	}
}

// checkWASource says where a simulated drive's host writes came from: a
// database's own, through the drive's filesystem (sim.fs, docs/simfs.md), or
// the simulator's synthetic workload. Runs fed differently, or a
// filesystem that stopped serving mid-run (the drive then missed writes),
// do not compare. A real drive's writes are the host's: not listed.
func checkWASource(j *judgement) {
	if !simulated(j) {
		return
	}
	b, c := j.b.FSServing, j.c.FSServing
	switch {
	case b == nil && c == nil:
		j.add("WA source", Pass, "the simulated drive's synthetic workload in both runs, not a database's writes (no %s)", promql.SimFSServing)
	case b == nil || c == nil:
		j.add("WA source", Fail, "one run's drive was fed by its filesystem (%s), the other's by the synthetic workload", promql.SimFSServing)
	case *b < 1 || *c < 1:
		j.add("WA source", Fail, "the drive's filesystem stopped serving during a run (lowest %s %g vs %g): the drive missed the database's writes", promql.SimFSServing, *b, *c)
	default:
		j.add("WA source", Pass, "the database's own writes through the simulated drive's filesystem in both runs (%s 1 throughout)", promql.SimFSServing)
	}
}

// checkFillAtStart compares the data filesystems' fill. A simulated drive
// has none (the plan's fill check reads the simulator's own fill): the
// check is not run there rather than left unknown.
func checkFillAtStart(j *judgement) {
	b, c := j.b, j.c
	if b.FillStart == nil || c.FillStart == nil {
		if simulated(j) {
			return
		}
		j.add("fill at start", Unknown, "%s not found at both starts", promql.FilesystemUsed)
	} else if d := math.Abs(*b.FillStart - *c.FillStart); d > *j.o.Checks.FillTolerance {
		j.add("fill at start", Fail, "%.0f%% vs %.0f%% (tolerance %.0f points)", 100**b.FillStart, 100**c.FillStart, 100**j.o.Checks.FillTolerance)
	} else {
		j.add("fill at start", Pass, "%.0f%% vs %.0f%%", 100**b.FillStart, 100**c.FillStart)
	}
}

// checkWornIn holds both runs to the same wear: a fresh drive (below one
// capacity of NAND writes at the start) against a worn-in one fails, and
// so does a run whose drive was overwritten fewer than Checks.WornInMin
// times by its first compared round (NAND writes before the run, its
// reset's included, plus host writes from the run's start to that round),
// or whose host writes from its start to that round differ from the other
// run's by more than Checks.WornInTolerance of the larger (and more than
// wornInSlack): the drive's GC state at the window follows how often its
// logical space was overwritten since the reset.
func checkWornIn(j *judgement) {
	b, c := j.b, j.c
	if b.DriveTurns != nil && c.DriveTurns != nil && (*b.DriveTurns < 1) != (*c.DriveTurns < 1) {
		j.add("drive worn in", Fail, "%.2f vs %.2f drive capacities written before the run: a fresh drive and a worn-in one do not compare", *b.DriveTurns, *c.DriveTurns)
		return
	}
	wb, wc := j.r.writtenBefore(0), j.r.writtenBefore(1)
	if wb == nil || wc == nil {
		j.add("drive worn in", Unknown, "capacity or the compared rounds not known for both runs: the writes before the window are not")
		return
	}
	minW, tol := *j.o.Checks.WornInMin, *j.o.Checks.WornInTolerance
	what := fmt.Sprintf("%.2f vs %.2f drive capacities of host writes from the run's start to the first compared %s", *wb, *wc, j.unit)
	// Overwritten by the window: the drive's writes before the run (its
	// reset's preconditioning among them) and the run's before the window.
	ob, oc := *wb, *wc
	if b.DriveTurns != nil && c.DriveTurns != nil {
		ob, oc = ob+*b.DriveTurns, oc+*c.DriveTurns
		what += fmt.Sprintf(", %.2f vs %.2f with the NAND writes before the run", ob, oc)
	}
	switch lo, hi := min(*wb, *wc), max(*wb, *wc); {
	case min(ob, oc) < minW:
		j.add("drive worn in", Fail, "%s: below the minimum of %g (a window on a drive not yet overwritten)", what, minW)
	case hi-lo > tol*hi && hi-lo > wornInSlack:
		j.add("drive worn in", Fail, "%s: they differ by %.0f%% of the larger (tolerance %.0f%%): the windows are at different wear", what, 100*(hi-lo)/hi, 100*tol)
	default:
		j.add("drive worn in", Pass, "%s (minimum %g, tolerance %.0f%%)", what, minW, 100*tol)
	}
}

// wornInSlack: host writes before the window that differ by less than
// this many drive capacities are the same wear, whatever their ratio (two
// runs steady from their first rounds differ by a few rounds' writes).
const wornInSlack = 0.1

// writtenBefore is run i's host bytes from its start to its first
// compared round, in drive capacities; nil without a capacity.
func (r *Result) writtenBefore(i int) *float64 {
	f := r.Facts[i]
	if f.Capacity == nil || !(*f.Capacity > 0) || len(r.Last[i]) == 0 {
		return nil
	}
	var sum float64
	for _, h := range r.Tables[i] {
		if h.Hour < r.Last[i][0].Hour && h.HostBytes > 0 {
			sum += h.HostBytes
		}
	}
	v := sum / *f.Capacity
	return &v
}

// checkMDSync: nothing known to poison the window: an md sync writes the
// members. A simulated drive has no block device an array could sit on:
// not run there.
func checkMDSync(j *judgement) {
	for i, role := range roles {
		f := j.r.Facts[i]
		switch {
		case f.MDSync == nil && simulated(j): // not run
		case f.MDSync == nil:
			j.add(role+" no md sync", Unknown, "no blockdev data for the drive (collector blockdev)")
		case *f.MDSync:
			j.add(role+" no md sync", Fail, "an md resync/check of an array over the drive ran during the compared %ss: it wrote the drive by itself", j.unit)
		default:
			j.add(role+" no md sync", Pass, "no md sync over the drive during the compared %ss", j.unit)
		}
	}
}

// checkPlacement: observed per command when the tracer ran, else inferred
// from the directive/FDP state.
func checkPlacement(j *judgement) {
	b, c, o := j.b, j.c, j.o
	if o.Checks.Placement == PlacementOff {
		return
	}
	if b.PlacedShare != nil && c.PlacedShare != nil {
		checkObservedShares(j, *b.PlacedShare, *c.PlacedShare, *o.Checks.PlacementMinShare, "carried a placement id",
			"carried a placement id ("+placedSource(j)+")", "the hint did not reach the drive")
		return
	}
	// Both arms with FDP (or streams) on: the state cannot tell them
	// apart; where placement is by namespace, each namespace's own write
	// counter can.
	if b.NamespaceShare != nil && c.NamespaceShare != nil && isTrue(b.Placement) && isTrue(c.Placement) {
		// Placement by namespace, seen in each namespace's own write
		// counter: the candidate's instances spread their writes over
		// namespaces (each on its own reclaim unit handle), the
		// baseline's stay on one.
		checkObservedShares(j, *b.NamespaceShare, *c.NamespaceShare, *o.Checks.NamespaceMinShare, "went outside its busiest namespace",
			"went outside the busiest namespace (each namespace's own SMART log: placement by namespace)", "its instances did not move to namespaces of their own")
		return
	}
	switch {
	case b.Placement == nil || c.Placement == nil:
		j.add("placement (inferred)", Unknown, "directive/FDP state not found for both runs")
	case !*c.Placement:
		j.add("placement (inferred)", Fail, "streams/FDP disabled in the candidate: it measured the baseline")
	case *b.Placement:
		j.add("placement (inferred)", Fail, "streams/FDP enabled in the baseline")
	default:
		j.add("placement (inferred)", Pass, "baseline off, candidate on (directive state; not per-command proof)")
	}
}

// checkObservedShares judges placement by the shares of write bytes seen
// placed (what; passed: the pass line's words): at least minShare of the
// candidate's, at most Checks.BaselineMaxShare of the baseline's; few
// says what too small a candidate share means.
func checkObservedShares(j *judgement, bs, cs, minShare float64, what, passed, few string) {
	maxShare := *j.o.Checks.BaselineMaxShare
	switch {
	case cs < minShare:
		j.add("placement (observed)", Fail, "only %.1f%% of the candidate's write bytes %s (at least %.0f%% wanted): %s", 100*cs, what, 100*minShare, few)
	case bs > maxShare:
		j.add("placement (observed)", Fail, "%.1f%% of the baseline's write bytes %s (at most %.0f%%): it is no baseline", 100*bs, what, 100*maxShare)
	default:
		j.add("placement (observed)", Pass, "%.1f%% of the candidate's and %.1f%% of the baseline's write bytes %s", 100*cs, 100*bs, passed)
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

// placedSource says who counted walab_nvme_write_bytes_total's placement
// ids: the BPF tracer, per command, or the simulated drive itself.
func placedSource(j *judgement) string {
	if simulated(j) {
		return "counted by the simulated drive itself, nothing traced"
	}
	return "per command, BPF on nvme:nvme_setup_cmd"
}
