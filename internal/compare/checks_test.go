package compare_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/compare/comparetest"
)

// TestCompareDriftSyncAndBlockView: the MySQL variables of the two runs
// are compared (a different innodb_io_capacity is NOT VALID, and listed),
// an md check over the drive during the candidate's compared hours is NOT
// VALID, and the block layer's view of each run is printed with its change.
func TestCompareDriftSyncAndBlockView(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	base := map[string]float64{"innodb_io_capacity": 2000, "innodb_flush_neighbors": 0}
	runs := []comparetest.Run{
		{ID: "b", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(2.5, 8), Settings: base, Block: true},
		{ID: "same", Scenario: "streams", Start: t0.Add(10 * time.Hour), WA: comparetest.RepeatWA(2.2, 8), Settings: base, Block: true},
		{ID: "drift", Scenario: "streams", Start: t0.Add(20 * time.Hour), WA: comparetest.RepeatWA(2.2, 8),
			Settings: map[string]float64{"innodb_io_capacity": 4000, "innodb_flush_neighbors": 0}, Block: true, SyncHours: []int{6}},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	judge := func(cand string) (*compare.Result, string) {
		res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b", Candidate: cand, Device: "nvme0",
			LastHours: 6, From: t0.Add(-time.Hour), To: time.Now(), Checks: compare.CheckOptions{Placement: "off"}})
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, res.Write(&out, true))
		return res, out.String()
	}
	res, out := judge("same")
	t.Log(out)
	require.True(t, res.Verdict.Valid, out)
	require.Contains(t, out, "pass    same MySQL config      2 variables equal")
	require.Contains(t, out, "pass    candidate no md sync   no md sync over the drive")
	require.InDelta(t, 10, *res.Facts[0].Block.WritesPerSec, 1e-9)
	require.InDelta(t, 0.001, *res.Facts[0].Block.WriteAwaitSec, 1e-9)
	require.InDelta(t, 0.5, *res.Facts[1].Block.Util, 1e-9)
	require.InDelta(t, compare.MiB/60.0, *res.Facts[0].Block.WriteBytesPerSec, 1e-6) // 1 MiB a minute
	requireRow(t, out, "block w/s", "10.0", "10.0", "+0.0%")
	requireRow(t, out, "block wMB/s", "0.02", "0.02", "+0.0%")
	requireRow(t, out, "block w_await (ms)", "1.000", "1.000", "+0.0%")
	requireRow(t, out, "block %util", "50.0", "50.0", "+0.0%")

	report := checkReport(t, res, false)
	require.Contains(t, report, "WA reduction (baseline - candidate) / baseline: 12.00%")

	res, out = judge("drift")
	require.False(t, res.Verdict.Valid)
	report = checkReport(t, res, false)
	require.Contains(t, report, `class="verdict invalid"`)
	require.NotContains(t, report, "WA reduction (baseline", "NOT VALID: no reduction in the report either")
	require.Contains(t, out, "FAIL    same MySQL config      innodb_io_capacity 2000 vs 4000")
	require.Contains(t, out, "FAIL    candidate no md sync   an md resync/check of an array over the drive ran")
	require.Contains(t, out, "pass    baseline no md sync")

	res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b", Candidate: "drift", Device: "nvme0",
		LastHours: 6, From: t0.Add(-time.Hour), To: time.Now(), Checks: compare.CheckOptions{Placement: "off", AllowConfigDrift: true}})
	require.NoError(t, err)
	for _, c := range res.Verdict.Checks {
		if c.Name == "same MySQL config" {
			require.Equal(t, compare.Pass, c.Status)
			require.Contains(t, c.Detail, "innodb_io_capacity 2000 vs 4000")
		}
	}
}

// TestCompareTimeRangesServerCommits: runs given as time ranges, driven by
// a client walab does not instrument (no loadgen counters), take their
// throughput from the servers' COMMITs, labelled so; the headline carries
// the change, without an interval (one run each).
func TestCompareTimeRangesServerCommits(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	runs := []comparetest.Run{
		{ID: "x", Scenario: "x", Start: t0, WA: comparetest.RepeatWA(2.5, 8), ServerCommitsPerMin: 1200},
		{ID: "y", Scenario: "y", Start: t0.Add(10 * time.Hour), WA: comparetest.RepeatWA(2.2, 8), ServerCommitsPerMin: 1500},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	br := [2]time.Time{t0, t0.Add(8 * time.Hour)}
	cr := [2]time.Time{t0.Add(10 * time.Hour), t0.Add(18 * time.Hour)}
	res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{BaselineRange: &br, CandidateRange: &cr, Device: "nvme0",
		LastHours: 6, Checks: compare.CheckOptions{Placement: "off"}})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, res.Write(&out, false))
	t.Log(out.String())
	require.Equal(t, compare.TxnServer, res.Facts[0].TxnSource)
	require.Equal(t, compare.TxnServer, res.Facts[1].TxnSource)
	require.Contains(t, out.String(), "VALID  WA -12.0% [-12.0, -12.0] (steady from h1 / h1)  throughput +25.0% (no interval: one run each: give the plan `cycles: 3` for an interval)")
	requireRow(t, out.String(), "transactions/s (server COMMITs)", "20.00", "25.00", "+25.0%")
	require.NotContains(t, out.String(), "New-Orders", "no TPC-C figure is made up")
	require.NotContains(t, out.String(), "latency", "sysbench's latency is not in Prometheus")
}

// TestCompareOfferedLoad: loadgen's terminals and rate limit of the two
// runs must match (the runs offered the same load); a candidate with twice
// the terminals is NOT VALID, allowed with --allow-config-drift, and runs
// without loadgen's series leave the check unknown.
func TestCompareOfferedLoad(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	runs := []comparetest.Run{
		{ID: "b", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(2.5, 8), TxnPerMin: 600, Terminals: 4},
		{ID: "same", Scenario: "streams", Start: t0.Add(10 * time.Hour), WA: comparetest.RepeatWA(2.2, 8), TxnPerMin: 660, Terminals: 4},
		{ID: "more", Scenario: "streams", Start: t0.Add(20 * time.Hour), WA: comparetest.RepeatWA(2.2, 8), TxnPerMin: 900, Terminals: 8, RateLimit: 50},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	judge := func(cand string, allow bool) (*compare.Result, string) {
		res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b", Candidate: cand, Device: "nvme0",
			LastHours: 6, From: t0.Add(-time.Hour), To: time.Now(), Checks: compare.CheckOptions{Placement: "off", AllowConfigDrift: allow}})
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, res.Write(&out, true))
		return res, out.String()
	}
	res, out := judge("same", false)
	require.True(t, res.Verdict.Valid, out)
	require.Contains(t, out, "pass    same offered load      4 terminals, unlimited rate")
	res, out = judge("more", false)
	require.False(t, res.Verdict.Valid, out)
	require.Contains(t, out, "NOT VALID: same offered load: 4 terminals, unlimited rate vs 8 terminals, at most 50 transactions/s")
	res, out = judge("more", true)
	require.True(t, res.Verdict.Valid, out)
	require.Contains(t, out, "pass    same offered load      differs, allowed: 4 terminals")
}

// TestCompareThroughputSteady: the performance figures come from the
// rounds from where throughput settled (a candidate warming up for four
// hours is compared from hour 5, and its throughput change is then
// exactly 0), WA from its own steady rounds (all twelve); a candidate
// whose throughput never settles leaves the WA verdict VALID, warns, and
// gives the performance changes no interval. A last-nonzero selection
// (seed 000's rule) keeps every round.
func TestCompareThroughputSteady(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	step := map[int]float64{}
	for h := 2; h <= 12; h += 2 {
		step[h] = 0.5
	}
	runs := []comparetest.Run{
		{ID: "b", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(2.5, 12), TxnPerMin: 600, Terminals: 4},
		{ID: "warm", Scenario: "streams", Start: t0.Add(14 * time.Hour), WA: comparetest.RepeatWA(2.2, 12), TxnPerMin: 600, Terminals: 4,
			TxnScale: map[int]float64{1: 0.4, 2: 0.55, 3: 0.7, 4: 0.85}},
		{ID: "step", Scenario: "streams", Start: t0.Add(28 * time.Hour), WA: comparetest.RepeatWA(2.2, 12), TxnPerMin: 600, Terminals: 4, TxnScale: step},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	judge := func(cand, sel string) (*compare.Result, string) {
		res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b", Candidate: cand, Device: "nvme0",
			LastHours: 12, Select: sel, From: t0.Add(-time.Hour), To: time.Now(), Checks: compare.CheckOptions{Placement: "off"}})
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, res.Write(&out, true))
		return res, out.String()
	}
	res, out := judge("warm", compare.SelectSteady)
	require.True(t, res.Verdict.Valid, out)
	require.Contains(t, out, "pass    candidate TPS steady   transactions per hour steady from hour 5")
	require.Equal(t, 5, res.Perf[1][0].Hour, out)
	require.Len(t, res.Perf[1], 8, out)
	// WA keeps its own steady rounds: all twelve, and its interval.
	require.Equal(t, 1, res.Last[1][0].Hour, out)
	require.Len(t, res.Last[1], 12, out)
	require.True(t, res.Verdict.WA.Significant(), out)
	require.Contains(t, out, "performance over the compared hours (throughput and latency over hours 1–12 / 5–12, from the throughput's steady state):")
	require.Regexp(t, `(?m)^candidate +4 +2\.2000 +- `, out, "a round before the throughput's steady state has no throughput cell")
	require.Regexp(t, `(?m)^candidate +5 +2\.2000 +10\.00 `, out)
	require.Equal(t, compare.ThroughputSteady{Applies: true, From: 5}, res.ThroughputSteady[1])
	// One run each: the change without an interval, never significant.
	require.False(t, res.Verdict.Throughput.OK, out)
	require.Equal(t, compare.OneRunEach, res.Verdict.Throughput.Why)
	require.InDelta(t, 0, res.Verdict.Throughput.Est, 1e-9, out)
	require.False(t, res.Verdict.Throughput.Significant(), out)

	res, out = judge("warm", compare.SelectLastNonZero)
	require.Equal(t, 1, res.Last[1][0].Hour, out)
	require.NotContains(t, out, "TPS steady")
	require.Less(t, res.Verdict.Throughput.Est, -0.05, out)

	res, out = judge("step", compare.SelectSteady)
	require.True(t, res.Verdict.Valid, out)
	require.Contains(t, out, "warn    candidate TPS steady   transactions per hour never steady")
	require.False(t, res.Verdict.Throughput.OK, out)
	require.Equal(t, "candidate throughput not steady", res.Verdict.Throughput.Why)
	require.Contains(t, out, "throughput -25.0% (no interval: candidate throughput not steady)")
	require.True(t, res.Verdict.WA.Significant(), out)
}
