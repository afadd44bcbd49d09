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
	checkThroughputSteady,
	checkComplete,
	checkSameDrive,
	checkFillAtStart,
	checkWornIn,
	checkHostRate,
	checkOfferedLoad,
	checkMDSync,
	checkMySQLConfig,
	checkPlacement,
	checkAnswers,
}

func checkSteady(j *judgement) {
	for i, role := range roles {
		if j.r.SteadyAt[i] > 0 {
			j.add(role+" steady", Pass, "steady from %s %d (%s)", j.unit, j.r.SteadyAt[i], j.o.Steady)
		} else {
			j.add(role+" steady", Fail, "WA never reached steady state (%s)", j.o.Steady)
		}
	}
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

func checkWornIn(j *judgement) {
	b, c := j.b, j.c
	if b.DriveTurns == nil || c.DriveTurns == nil {
		j.add("drive worn in", Unknown, "NAND bytes or capacity not found at both starts")
	} else if (*b.DriveTurns < 1) != (*c.DriveTurns < 1) {
		j.add("drive worn in", Fail, "%.2f vs %.2f drive capacities written before the run: a fresh drive and a worn-in one do not compare", *b.DriveTurns, *c.DriveTurns)
	} else {
		j.add("drive worn in", Pass, "%.2f vs %.2f drive capacities written before the run", *b.DriveTurns, *c.DriveTurns)
	}
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
