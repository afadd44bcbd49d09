package compare

import (
	"fmt"
	"sort"
)

// Check statuses.
const (
	Pass    = "pass"
	Fail    = "FAIL"
	Unknown = "unknown" // the data to decide is not in Prometheus; does not invalidate
	Warn    = "warn"    // the WA verdict stands; a figure the check names has no interval
)

// Check is one comparability question and its answer with the numbers.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// CheckOptions are the tolerances of the comparability checks. A nil
// tolerance is not given and reads as DefaultOptions' value; a given 0 is
// exact (no difference passes), never "the default".
type CheckOptions struct {
	// AllowDifferentDevice accepts runs on drives with another serial or
	// firmware.
	AllowDifferentDevice bool
	// FillTolerance is the largest difference of filesystem fill at run
	// start, as a share of the filesystem (default 0.10: 31% vs 45% fails).
	FillTolerance *float64
	// RateTolerance is the largest relative difference of the host write
	// rate over the compared rounds (the two runs must offer the same load;
	// default 0.25).
	RateTolerance *float64
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
	PlacementMinShare, BaselineMaxShare *float64
	// NamespaceMinShare is the least share of the candidate's write bytes
	// that must go outside its busiest namespace when placement is by
	// namespace (no tracer counts, each namespace's own SMART log): one of
	// two like instances on a namespace of its own writes about half
	// (default 0.2); the baseline may write at most BaselineMaxShare there.
	NamespaceMinShare *float64
	// WornInMin is the least host writes, in drive capacities, from a
	// run's start to its first compared round (default 1); WornInTolerance
	// the largest difference of the two runs' figures, as a share of the
	// larger (default 0.25).
	WornInMin, WornInTolerance *float64
}

// Tolerance is a given tolerance, for a CheckOptions field.
func Tolerance(v float64) *float64 { return &v }

// withDefaults fills the tolerances not given with fresh copies of the
// defaults (a caller's flag may point at one and change it).
func (c CheckOptions) withDefaults() CheckOptions {
	for _, f := range []struct {
		p   **float64
		def float64
	}{{&c.FillTolerance, 0.10}, {&c.RateTolerance, 0.25}, {&c.PlacementMinShare, 0.5}, {&c.BaselineMaxShare, 0.05}, {&c.NamespaceMinShare, 0.2}, {&c.WornInMin, 1}, {&c.WornInTolerance, 0.25}} {
		if *f.p == nil {
			*f.p = Tolerance(f.def)
		}
	}
	if c.Placement == "" {
		c.Placement = "differs"
	}
	return c
}

// RunFacts is what Prometheus knows about a run besides its WA table. A
// nil pointer or empty string is "not in Prometheus".
type RunFacts struct {
	Serial, Firmware string
	// Simulated: the drive is the exporter's simulated drive
	// (walab_nvme_info simulated="true"): no filesystem, no block device,
	// and its write counts are the simulator's own.
	Simulated bool `json:",omitempty"`
	// Identities is the number of walab_nvme_info series (serial,
	// firmware, ...) the run's devices had, when more than one per device;
	// Serial and Firmware are then the first one's. 0 otherwise.
	Identities int `json:",omitempty"`
	// FillStart is the fullest configured filesystem (used / size) at the
	// run's start.
	FillStart *float64 `json:",omitempty"`
	// DriveTurns is NAND bytes the drive had written before the run,
	// divided by its capacity: a fresh drive (below 1) is not in the GC
	// steady state of a worn-in one.
	DriveTurns *float64 `json:",omitempty"`
	// Capacity is the drives' capacity in bytes at the run's start.
	Capacity *float64 `json:",omitempty"`
	// Placement is whether streams or FDP was enabled during the run,
	// inferred from the directive/FDP state the exporter reads (not proof
	// that writes carried a placement id).
	Placement *bool `json:",omitempty"`
	// FSServing is the lowest walab_simfs_serving of the run's devices
	// over the run: 1 when a filesystem fed the simulated drive the whole
	// run (a database's own writes, not the simulator's workload), 0 when
	// it stopped serving; nil without the series (a generator's drive).
	FSServing *float64 `json:",omitempty"`
	// PlacedShare is the share of the write bytes the kernel sent to the
	// drive with a stream id or placement handle over the compared rounds,
	// counted per command by the placement tracer
	// (walab_nvme_write_bytes_total); nil without tracer data.
	PlacedShare *float64 `json:",omitempty"`
	// NamespaceShare is the share of the compared rounds' write bytes, by
	// each namespace's own SMART log (walab_nvme_namespace_written_bytes_total),
	// that went to namespaces other than the busiest: about 0 when every
	// instance writes to one namespace, about half when one of two like
	// instances has its own; nil without per-namespace counters.
	NamespaceShare *float64 `json:",omitempty"`
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
	// RAIDLatency is the array's r_await and w_await against its slowest
	// member's over the performance rounds; only with Options.Array.
	RAIDLatency *RAIDLatency `json:",omitempty"`
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
	// ThroughputRounds and P99Rounds are the throughput and p99 changes
	// with the interval from the spread of rounds within each run: never
	// printed (one run each measures the machine's load, not the setting;
	// docs/compare.md), kept for the pipeline's error-rate bench, which
	// measures how often that interval misleads.
	ThroughputRounds Interval `json:"throughput_rounds_change"`
	P99Rounds        Interval `json:"p99_rounds_change"`
}

func judge(r *Result, o Options) Verdict {
	j := &judgement{r: r, o: o, unit: roundName(r.Round), b: r.Facts[0], c: r.Facts[1]}
	for _, check := range comparabilityChecks {
		check(j)
	}
	v := j.v
	v.Valid = len(v.Reasons) == 0
	v.WA = o.Interval.RelChange(WAPairs(r.Last[0]), WAPairs(r.Last[1]))
	v.Throughput = o.Interval.RelChange(countPairs(j.b.Txn), countPairs(j.c.Txn))
	v.TpmC = o.Interval.RelChange(countPairs(j.b.NewOrder), countPairs(j.c.NewOrder))
	v.P95 = o.Interval.RelChange(countPairs(j.b.P95Rounds), countPairs(j.c.P95Rounds))
	v.P99 = o.Interval.RelChange(countPairs(j.b.P99Rounds), countPairs(j.c.P99Rounds))
	v.ThroughputRounds, v.P99Rounds = v.Throughput, v.P99
	why := r.noSteadyThroughput(o.Steady.Drift)
	if why == "" {
		why = OneRunEach
		if o.Reps >= 2 {
			why = fmt.Sprintf("this pair of runs only: the interval between the %d repetitions is the report's", o.Reps)
		}
	}
	for _, iv := range []*Interval{&v.Throughput, &v.TpmC, &v.P95, &v.P99} {
		*iv = withoutInterval(*iv, why)
	}
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

// ResolvedChecks are c as Compare judges with them: each tolerance not
// given is the default, each given one (0 too) is kept.
func ResolvedChecks(c CheckOptions) CheckOptions { return c.withDefaults() }
