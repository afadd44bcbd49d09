package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/walab/walab/internal/promql"
)

// judgement is the state one comparison's checks share: the result, the
// options, the two runs' facts, and the verdict the checks add to.
type judgement struct {
	r    *Result
	o    Options
	unit string // the round's name: hour, round, ...
	b, c RunFacts
	v    Verdict
}

// add records one check; a failed one is also a reason the comparison is
// not valid.
func (j *judgement) add(name, status, format string, a ...any) {
	c := Check{Name: name, Status: status, Detail: fmt.Sprintf(format, a...)}
	j.v.Checks = append(j.v.Checks, c)
	if status == Fail {
		j.v.Reasons = append(j.v.Reasons, name+": "+c.Detail)
	}
}

// comparabilityChecks run in this order; the verdict lists their results
// in it.
var comparabilityChecks = []func(*judgement){
	checkSteady,
	checkEqualWindows,
	checkThroughputSteady,
	checkComplete,
	checkSameDrive,
	checkWASource,
	checkFillAtStart,
	checkWornIn,
	checkHostRate,
	checkOfferedLoad,
	checkMDSync,
	checkMySQLConfig,
	checkPlacement,
	checkAnswers,
}

// checkSteady holds each run's WA to the steady-state rule: a first
// steady window, and no drift over the compared rounds (the trend's line
// names which rule failed and by how much).
func checkSteady(j *judgement) {
	for i, role := range roles {
		tr := j.r.Trend[i]
		switch {
		case j.r.SteadyAt[i] == 0:
			j.add(role+" steady", Fail, "WA never reached steady state (%s); compared rounds %s", j.o.Steady, tr)
		case !tr.Held():
			j.add(role+" steady", Fail, "WA %s; a first steady window from %s %d (%s)", tr, j.unit, j.r.SteadyAt[i], j.o.Steady)
		default:
			j.add(role+" steady", Pass, "steady from %s %d (%s); WA %s", j.unit, j.r.SteadyAt[i], j.o.Steady, tr)
		}
	}
}

// checkEqualWindows: with the steady selection both runs are compared over
// the same rounds (the same count at the same round numbers from their
// reset); never a longer window on one side.
func checkEqualWindows(j *judgement) {
	if j.o.Select != SelectSteady {
		return
	}
	a, b := j.r.Last[0], j.r.Last[1]
	if len(a) == 0 || len(b) == 0 {
		return
	}
	same := len(a) == len(b)
	for k := 0; same && k < len(a); k++ {
		same = a[k].Hour == b[k].Hour
	}
	if !same {
		j.add("equal windows", Fail, "baseline %ss %d–%d (%d), candidate %ss %d–%d (%d): not the same rounds",
			j.unit, a[0].Hour, a[len(a)-1].Hour, len(a), j.unit, b[0].Hour, b[len(b)-1].Hour, len(b))
		return
	}
	j.add("equal windows", Pass, "%ss %d–%d in both runs (%d each), counted from each run's start", j.unit, a[0].Hour, a[len(a)-1].Hour, len(a))
}

func checkComplete(j *judgement) {
	for i, role := range roles {
		if m := j.r.Missing[i]; len(m) > 0 {
			j.add(role+" complete", Fail, "%d of %d %ss without NAND/host data (%s)", len(m), len(j.r.Tables[i]), j.unit, hourList(m))
		} else {
			j.add(role+" complete", Pass, "every %s has NAND and host data", j.unit)
		}
	}
}

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

// checkHostRate: the same offered load, seen as host bytes per round.
func checkHostRate(j *judgement) {
	hb, hc := hostRate(j.r.Last[0]), hostRate(j.r.Last[1])
	if rel := math.Abs(hc-hb) / hb; rel > *j.o.Checks.RateTolerance {
		j.add("host write rate", Fail, "%.1f vs %.1f MiB per %s (%+.0f%%, tolerance %.0f%%)", hb/MiB, hc/MiB, j.unit, 100*(hc-hb)/hb, 100**j.o.Checks.RateTolerance)
	} else {
		j.add("host write rate", Pass, "%.1f vs %.1f MiB per %s", hb/MiB, hc/MiB, j.unit)
	}
}

// checkOfferedLoad: the same offered load, as loadgen's terminals and
// rate limit.
func checkOfferedLoad(j *judgement) {
	b, c := j.b, j.c
	switch {
	case b.Terminals == nil || c.Terminals == nil:
		j.add("same offered load", Unknown, "%s not found for both runs (load from another client)", promql.LoadgenActiveTerminals)
	case *b.Terminals != *c.Terminals || ptrValue(b.RateLimit) != ptrValue(c.RateLimit):
		st := Fail
		detail := fmt.Sprintf("%s vs %s", offered(b), offered(c))
		if j.o.Checks.AllowConfigDrift {
			st, detail = Pass, "differs, allowed: "+detail
		}
		j.add("same offered load", st, "%s", detail)
	default:
		j.add("same offered load", Pass, "%s", offered(b))
	}
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

// checkMySQLConfig: configuration drift in the MySQL variables the seeds
// tune.
func checkMySQLConfig(j *judgement) {
	b, c := j.b, j.c
	if len(b.Settings) == 0 || len(c.Settings) == 0 {
		j.add("same MySQL config", Unknown, "%s not found for both runs", promql.MySQLSetting)
		return
	}
	var diff []string
	for _, k := range sortedUnion(b.Settings, c.Settings) {
		bv, bok := b.Settings[k]
		cv, cok := c.Settings[k]
		if bok && cok && bv != cv {
			diff = append(diff, fmt.Sprintf("%s %s vs %s", k, bv, cv))
		}
	}
	switch {
	case len(diff) == 0:
		noun := "variables"
		if len(b.Settings) == 1 {
			noun = "variable"
		}
		j.add("same MySQL config", Pass, "%d %s equal", len(b.Settings), noun)
	case j.o.Checks.AllowConfigDrift:
		j.add("same MySQL config", Pass, "differs, allowed: %s", strings.Join(diff, "; "))
	default:
		j.add("same MySQL config", Fail, "%s", strings.Join(diff, "; "))
	}
}

// checkPlacement: observed per command when the tracer ran, else inferred
// from the directive/FDP state.
func checkPlacement(j *judgement) {
	b, c, o := j.b, j.c, j.o
	if o.Checks.Placement == "off" {
		return
	}
	if b.PlacedShare != nil && c.PlacedShare != nil {
		bs, cs := *b.PlacedShare, *c.PlacedShare
		switch {
		case cs < *o.Checks.PlacementMinShare:
			j.add("placement (observed)", Fail, "only %.1f%% of the candidate's write bytes carried a placement id (at least %.0f%% wanted): the hint did not reach the drive", 100*cs, 100**o.Checks.PlacementMinShare)
		case bs > *o.Checks.BaselineMaxShare:
			j.add("placement (observed)", Fail, "%.1f%% of the baseline's write bytes carried a placement id (at most %.0f%%): it is no baseline", 100*bs, 100**o.Checks.BaselineMaxShare)
		default:
			j.add("placement (observed)", Pass, "%.1f%% of the candidate's and %.1f%% of the baseline's write bytes carried a placement id (%s)", 100*cs, 100*bs, placedSource(j))
		}
		return
	}
	// Both arms with FDP (or streams) on: the state cannot tell them
	// apart; where placement is by namespace, each namespace's own write
	// counter can.
	if b.NamespaceShare != nil && c.NamespaceShare != nil && isTrue(b.Placement) && isTrue(c.Placement) {
		checkNamespacePlacement(j, *b.NamespaceShare, *c.NamespaceShare)
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

// checkNamespacePlacement: placement by namespace, seen in each
// namespace's own write counter: the candidate's instances spread their
// writes over namespaces (each on its own reclaim unit handle), the
// baseline's stay on one.
func checkNamespacePlacement(j *judgement, bs, cs float64) {
	o := j.o
	switch {
	case cs < *o.Checks.NamespaceMinShare:
		j.add("placement (observed)", Fail, "only %.1f%% of the candidate's write bytes went outside its busiest namespace (at least %.0f%% wanted): its instances did not move to namespaces of their own", 100*cs, 100**o.Checks.NamespaceMinShare)
	case bs > *o.Checks.BaselineMaxShare:
		j.add("placement (observed)", Fail, "%.1f%% of the baseline's write bytes went outside its busiest namespace (at most %.0f%%): it is no baseline", 100*bs, 100**o.Checks.BaselineMaxShare)
	default:
		j.add("placement (observed)", Pass, "%.1f%% of the candidate's and %.1f%% of the baseline's write bytes went outside the busiest namespace (each namespace's own SMART log: placement by namespace)", 100*cs, 100*bs)
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

// checkAnswers fails a comparison any of whose answers came with a
// warning (it is listed only then: complete answers are the rule).
func checkAnswers(j *judgement) {
	if w := j.r.Warnings; len(w) > 0 {
		j.add("complete answers", Fail, "the store warned in %d answer(s), e.g. a partial response: %s", len(w), w[0])
	}
}

// simulated: both runs were on the exporter's simulated drive.
func simulated(j *judgement) bool { return j.b.Simulated && j.c.Simulated }

// placedSource says who counted walab_nvme_write_bytes_total's placement
// ids: the BPF tracer, per command, or the simulated drive itself.
func placedSource(j *judgement) string {
	if simulated(j) {
		return "counted by the simulated drive itself, nothing traced"
	}
	return "per command, BPF on nvme:nvme_setup_cmd"
}
