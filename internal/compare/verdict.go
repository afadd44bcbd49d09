package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Check statuses.
const (
	Pass    = "pass"
	Fail    = "FAIL"
	Unknown = "unknown" // the data to decide is not in Prometheus; does not invalidate
)

// Check is one comparability question and its answer with the numbers.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// CheckOptions are the tolerances of the comparability checks.
type CheckOptions struct {
	// AllowDifferentDevice accepts runs on drives with another serial or
	// firmware.
	AllowDifferentDevice bool
	// FillTolerance is the largest difference of filesystem fill at run
	// start, as a share of the filesystem (0.10: 31% vs 45% fails).
	FillTolerance float64
	// RateTolerance is the largest relative difference of the host write
	// rate over the compared rounds (the two runs must offer the same load).
	RateTolerance float64
	// Placement: "differs" (default: the candidate has placement on, the
	// baseline off) or "off" (no placement check, for other comparisons).
	Placement string
	// AllowConfigDrift accepts runs whose MySQL variables differ (they
	// are still listed).
	AllowConfigDrift bool
	// PlacementMinShare is the least share of the candidate's write bytes
	// that must carry a placement id when the placement tracer counted
	// them (default 0.5); the baseline may carry at most
	// BaselineMaxShare (default 0.05).
	PlacementMinShare, BaselineMaxShare float64
}

func (c CheckOptions) withDefaults() CheckOptions {
	if c.FillTolerance == 0 {
		c.FillTolerance = 0.10
	}
	if c.RateTolerance == 0 {
		c.RateTolerance = 0.25
	}
	if c.Placement == "" {
		c.Placement = "differs"
	}
	if c.PlacementMinShare == 0 {
		c.PlacementMinShare = 0.5
	}
	if c.BaselineMaxShare == 0 {
		c.BaselineMaxShare = 0.05
	}
	return c
}

// RunFacts is what Prometheus knows about a run besides its WA table. A
// nil pointer or empty string is "not in Prometheus".
type RunFacts struct {
	Serial, Firmware string
	// FillStart is the fullest configured filesystem (used / size) at the
	// run's start.
	FillStart *float64 `json:",omitempty"`
	// DriveTurns is NAND bytes the drive had written before the run,
	// divided by its capacity: a fresh drive (below 1) is not in the GC
	// steady state of a worn-in one.
	DriveTurns *float64 `json:",omitempty"`
	// Placement is whether streams or FDP was enabled during the run,
	// inferred from the directive/FDP state the exporter reads (not proof
	// that writes carried a placement id).
	Placement *bool `json:",omitempty"`
	// PlacedShare is the share of the write bytes the kernel sent to the
	// drive with a stream id or placement handle over the compared rounds,
	// counted per command by the placement tracer
	// (walab_nvme_write_bytes_total); nil without tracer data.
	PlacedShare *float64 `json:",omitempty"`
	// Txn and NewOrder are committed transactions (all types; TPC-C New-Order)
	// in each compared round, in the order of the compared rounds.
	// A nil entry is a round without the counter.
	Txn, NewOrder []*float64 `json:",omitempty"`
	// TxnSource says where Txn comes from: TxnLoadgen (loadgen's committed
	// transactions) or TxnServer (the servers' COMMIT statements, for load
	// from another client); "" without either.
	TxnSource string `json:",omitempty"`
	// P95, P99: transaction latency quantiles over the compared rounds (s).
	P95, P99 *float64 `json:",omitempty"`
	// P95Rounds, P99Rounds: the same quantiles of each compared round (s),
	// in the order of the compared rounds; their intervals come from these.
	P95Rounds, P99Rounds []*float64 `json:",omitempty"`
	// Block is the device's namespaces' block-layer view over the compared
	// rounds (iostat's w/s, wMB/s, w_await, %util); nil fields are unknown.
	Block BlockView `json:",omitempty"`
	// Terminals and RateLimit are the load loadgen offered: its terminals
	// (most at once, summed over the run's targets) and its configured
	// transaction rate limit per second (0: unlimited); nil without
	// loadgen's series (load from another client).
	Terminals, RateLimit *float64 `json:",omitempty"`
	// MDSync is whether an md sync (resync, check, ...) of an array over
	// the drive ran during the compared rounds; nil: unknown (no blockdev
	// data); false also when the drive is under no md array.
	MDSync *bool `json:",omitempty"`
	// RAIDTheory is an md array's full-stripe WA (RAID 5 (2+1): 1.5); only
	// with Options.Array.
	RAIDTheory *float64 `json:",omitempty"`
	// Settings are the MySQL variables walab reads (walab_mysql_setting,
	// walab_mysql_setting_info) at the run's end, "target/name" -> value.
	Settings map[string]string `json:",omitempty"`
}

// Sources of RunFacts.Txn.
const (
	TxnLoadgen = "loadgen"
	TxnServer  = "server COMMITs"
)

// BlockView is a block device's iostat figures over a window.
type BlockView struct {
	WritesPerSec, WriteBytesPerSec, WriteAwaitSec, Util *float64 `json:",omitempty"`
}

// Verdict is the judgement of a comparison.
type Verdict struct {
	Valid      bool     `json:"valid"`
	Reasons    []string `json:"reasons,omitempty"` // the failed checks, in one line each
	Checks     []Check  `json:"checks"`
	WA         Interval `json:"wa_change"`         // relative change of WA, candidate vs baseline
	Throughput Interval `json:"throughput_change"` // committed transactions per round
	TpmC       Interval `json:"tpmc_change"`       // New-Order per round (TPC-C)
	// P95 and P99 are the change of the mean of the per-round latency
	// quantiles (the table's figure is the quantile of the whole window).
	P95 Interval `json:"p95_change"`
	P99 Interval `json:"p99_change"`
}

func judge(r *Result, o Options) Verdict {
	var v Verdict
	add := func(name, status, format string, a ...any) {
		c := Check{Name: name, Status: status, Detail: fmt.Sprintf(format, a...)}
		v.Checks = append(v.Checks, c)
		if status == Fail {
			v.Reasons = append(v.Reasons, name+": "+c.Detail)
		}
	}
	unit := roundName(r.Round)
	b, c := r.Facts[0], r.Facts[1]

	// Steady state.
	for i, role := range roles {
		if r.SteadyAt[i] > 0 {
			add(role+" steady", Pass, "steady from %s %d (%s)", unit, r.SteadyAt[i], o.Steady)
		} else {
			add(role+" steady", Fail, "WA never reached steady state (%s)", o.Steady)
		}
	}
	// Missing rounds.
	for i, role := range roles {
		if m := r.Missing[i]; len(m) > 0 {
			add(role+" complete", Fail, "%d of %d %ss without NAND/host data (%s)", len(m), len(r.Tables[i]), unit, hourList(m))
		} else {
			add(role+" complete", Pass, "every %s has NAND and host data", unit)
		}
	}
	// Same drive.
	switch {
	case b.Serial == "" || c.Serial == "":
		add("same drive", Unknown, "walab_nvme_info not found for both runs")
	case b.Serial != c.Serial || b.Firmware != c.Firmware:
		st := Fail
		if o.Checks.AllowDifferentDevice {
			st = Pass
		}
		add("same drive", st, "serial %s firmware %s vs serial %s firmware %s", b.Serial, b.Firmware, c.Serial, c.Firmware)
	default:
		add("same drive", Pass, "serial %s firmware %s", b.Serial, b.Firmware)
	}
	// Fill at start.
	if b.FillStart == nil || c.FillStart == nil {
		add("fill at start", Unknown, "walab_filesystem_used_bytes not found at both starts")
	} else if d := math.Abs(*b.FillStart - *c.FillStart); d > o.Checks.FillTolerance {
		add("fill at start", Fail, "%.0f%% vs %.0f%% (tolerance %.0f points)", 100**b.FillStart, 100**c.FillStart, 100*o.Checks.FillTolerance)
	} else {
		add("fill at start", Pass, "%.0f%% vs %.0f%%", 100**b.FillStart, 100**c.FillStart)
	}
	// Worn in.
	if b.DriveTurns == nil || c.DriveTurns == nil {
		add("drive worn in", Unknown, "NAND bytes or capacity not found at both starts")
	} else if (*b.DriveTurns < 1) != (*c.DriveTurns < 1) {
		add("drive worn in", Fail, "%.2f vs %.2f drive capacities written before the run: a fresh drive and a worn-in one do not compare", *b.DriveTurns, *c.DriveTurns)
	} else {
		add("drive worn in", Pass, "%.2f vs %.2f drive capacities written before the run", *b.DriveTurns, *c.DriveTurns)
	}
	// Same offered load.
	hb, hc := hostRate(r.Last[0]), hostRate(r.Last[1])
	if rel := math.Abs(hc-hb) / hb; rel > o.Checks.RateTolerance {
		add("host write rate", Fail, "%.1f vs %.1f MiB per %s (%+.0f%%, tolerance %.0f%%)", hb/MiB, hc/MiB, unit, 100*(hc-hb)/hb, 100*o.Checks.RateTolerance)
	} else {
		add("host write rate", Pass, "%.1f vs %.1f MiB per %s", hb/MiB, hc/MiB, unit)
	}
	// Same offered load: loadgen's terminals and rate limit.
	switch {
	case b.Terminals == nil || c.Terminals == nil:
		add("same offered load", Unknown, "walab_loadgen_active_terminals not found for both runs (load from another client)")
	case *b.Terminals != *c.Terminals || ptrValue(b.RateLimit) != ptrValue(c.RateLimit):
		st := Fail
		detail := fmt.Sprintf("%s vs %s", offered(b), offered(c))
		if o.Checks.AllowConfigDrift {
			st, detail = Pass, "differs, allowed: "+detail
		}
		add("same offered load", st, "%s", detail)
	default:
		add("same offered load", Pass, "%s", offered(b))
	}
	// Nothing known to poison the window: an md sync writes the members.
	for i, role := range roles {
		f := r.Facts[i]
		switch {
		case f.MDSync == nil:
			add(role+" no md sync", Unknown, "no blockdev data for the drive (collector blockdev)")
		case *f.MDSync:
			add(role+" no md sync", Fail, "an md resync/check of an array over the drive ran during the compared %ss: it wrote the drive by itself", unit)
		default:
			add(role+" no md sync", Pass, "no md sync over the drive during the compared %ss", unit)
		}
	}
	// Configuration drift: the MySQL variables the seeds tune.
	switch {
	case len(b.Settings) == 0 || len(c.Settings) == 0:
		add("same MySQL config", Unknown, "walab_mysql_setting not found for both runs")
	default:
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
			add("same MySQL config", Pass, "%d %s equal", len(b.Settings), noun)
		case o.Checks.AllowConfigDrift:
			add("same MySQL config", Pass, "differs, allowed: %s", strings.Join(diff, "; "))
		default:
			add("same MySQL config", Fail, "%s", strings.Join(diff, "; "))
		}
	}
	// Placement.
	if o.Checks.Placement != "off" && b.PlacedShare != nil && c.PlacedShare != nil {
		bs, cs := *b.PlacedShare, *c.PlacedShare
		switch {
		case cs < o.Checks.PlacementMinShare:
			add("placement (observed)", Fail, "only %.1f%% of the candidate's write bytes carried a placement id (at least %.0f%% wanted): the hint did not reach the drive", 100*cs, 100*o.Checks.PlacementMinShare)
		case bs > o.Checks.BaselineMaxShare:
			add("placement (observed)", Fail, "%.1f%% of the baseline's write bytes carried a placement id (at most %.0f%%): it is no baseline", 100*bs, 100*o.Checks.BaselineMaxShare)
		default:
			add("placement (observed)", Pass, "%.1f%% of the candidate's and %.1f%% of the baseline's write bytes carried a placement id (per command, nvme_setup_cmd)", 100*cs, 100*bs)
		}
	} else if o.Checks.Placement != "off" {
		switch {
		case b.Placement == nil || c.Placement == nil:
			add("placement (inferred)", Unknown, "directive/FDP state not found for both runs")
		case !*c.Placement:
			add("placement (inferred)", Fail, "streams/FDP disabled in the candidate: it measured the baseline")
		case *b.Placement:
			add("placement (inferred)", Fail, "streams/FDP enabled in the baseline")
		default:
			add("placement (inferred)", Pass, "baseline off, candidate on (directive state; not per-command proof)")
		}
	}
	v.Valid = len(v.Reasons) == 0

	v.WA = o.Interval.RelChange(WAPairs(r.Last[0]), WAPairs(r.Last[1]))
	v.Throughput = o.Interval.RelChange(countPairs(b.Txn), countPairs(c.Txn))
	v.TpmC = o.Interval.RelChange(countPairs(b.NewOrder), countPairs(c.NewOrder))
	v.P95 = o.Interval.RelChange(countPairs(b.P95Rounds), countPairs(c.P95Rounds))
	v.P99 = o.Interval.RelChange(countPairs(b.P99Rounds), countPairs(c.P99Rounds))
	return v
}

func ptrValue(x *float64) float64 {
	if x == nil {
		return 0
	}
	return *x
}

// offered describes a run's offered load: "8 terminals, unlimited rate".
func offered(f RunFacts) string {
	rate := "unlimited rate"
	if r := ptrValue(f.RateLimit); r > 0 {
		rate = fmt.Sprintf("at most %g transactions/s", r)
	}
	return fmt.Sprintf("%g terminals, %s", *f.Terminals, rate)
}

func hostRate(hs []Hour) float64 {
	var sum float64
	for _, h := range hs {
		sum += h.HostBytes
	}
	return sum / float64(len(hs))
}

func countPairs(xs []*float64) []Pair {
	out := make([]Pair, 0, len(xs))
	for _, x := range xs {
		if x != nil {
			out = append(out, Pair{Num: *x, Den: 1})
		}
	}
	return out
}

// Headline is the verdict's first line: VALID with the WA change and the
// throughput change and their 95% intervals, or NOT VALID and why.
func (v Verdict) Headline(r *Result) string {
	if !v.Valid {
		return "NOT VALID: " + strings.Join(v.Reasons, "; ")
	}
	steady := fmt.Sprintf("steady from %s%d / %s%d", roundLetter(r.Round), r.SteadyAt[0], roundLetter(r.Round), r.SteadyAt[1])
	s := fmt.Sprintf("VALID  WA %s (%s)", fmtInterval(v.WA), steady)
	if v.TpmC.OK || v.TpmC.Est != 0 {
		s += "  tpmC " + fmtInterval(v.TpmC)
	}
	if v.Throughput.OK || v.Throughput.Est != 0 {
		s += "  throughput " + fmtInterval(v.Throughput)
	}
	return s
}

func roundLetter(d interface{ Hours() float64 }) string {
	if d.Hours() == 1 {
		return "h"
	}
	return "r"
}

func fmtInterval(i Interval) string {
	if !i.OK {
		if i.Why == "" || i.Why == "no baseline figure" {
			return "n/a"
		}
		return fmt.Sprintf("%+.1f%% (no interval: %s)", 100*i.Est, i.Why)
	}
	s := fmt.Sprintf("%+.1f%% [%+.1f, %+.1f]", 100*i.Est, 100*i.Lo, 100*i.Hi)
	if !i.Significant() {
		s += " not significant"
	}
	return s
}

func sortedUnion(a, b map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
