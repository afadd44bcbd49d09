package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestJudgeWithoutAStore: the judging layer takes plain values, so a
// verdict test needs no Prometheus and no backfill. Two runs of 8 steady
// rounds with a 10 % lower candidate WA, hand-built, are judged; the same
// pair with a store's warning is NOT VALID and says why.
func TestJudgeWithoutAStore(t *testing.T) {
	rounds := func(wa float64) []Hour {
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var hs []Hour
		for i := range 8 {
			jitter := 1 + 0.01*float64(i%3-1)
			hs = append(hs, Hour{Hour: i + 1, HostBytes: 1 << 30, NANDBytes: wa * jitter * (1 << 30), At: t0.Add(time.Duration(i+1) * time.Hour)})
		}
		return hs
	}
	o := DefaultOptions()
	o.LastHours, o.Checks.Placement = 8, PlacementOff
	res := newResult(o)
	for i, wa := range []float64{2.5, 2.25} {
		res.Runs[i] = Run{ID: roles[i], Scenario: roles[i]}
		res.Tables[i] = rounds(wa)
	}
	sel, err := o.withDefaults().selectWindows(res.Tables)
	require.NoError(t, err)
	res.Last, res.SteadyAt, res.Trend = sel.Rounds, sel.SteadyAt, sel.Trend
	for i := range roles {
		res.Perf[i] = res.Last[i]
		res.WA[i] = AggregateWA(res.Last[i])
	}
	require.Equal(t, [2]int{1, 1}, res.SteadyAt)
	v := judge(res, o.withDefaults())
	require.True(t, v.Valid, "%v", v.Reasons)
	require.True(t, v.WA.OK, "an interval from 8 rounds a side")
	require.InDelta(t, -0.10, v.WA.Est, 0.005)
	require.True(t, v.WA.Significant(), "10 %% against a 1 %% spread")
	for _, c := range v.Checks {
		require.NotEqual(t, "complete answers", c.Name, "listed only when the store warned")
	}

	res.Warnings = []string{"partial response (query x)"}
	v = judge(res, o)
	require.False(t, v.Valid)
	require.Contains(t, strings.Join(v.Reasons, "; "), "the store warned in 1 answer(s)")
}

// TestWornInHoldsBothArms: the writes from each run's start to its first
// compared round, in drive capacities, are held to a minimum and to each
// other. 2.39 against 9.81 capacities passed the old check (both above
// one capacity); it fails now and says why, as does a pair below the
// minimum; a close pair above it passes.
func TestWornInHoldsBothArms(t *testing.T) {
	o := DefaultOptions()
	o.LastHours, o.Checks.Placement = 4, PlacementOff
	worn := func(b, c, turns float64) Check {
		res := newResult(o)
		for i, before := range []float64{b, c} {
			capacity := 1 << 30
			var table []Hour
			// Round 1: before the window, host writes of `before` capacities;
			// rounds 2..5 compared.
			table = append(table, Hour{Hour: 1, HostBytes: before * float64(capacity), NANDBytes: 2 * before * float64(capacity)})
			for h := 2; h <= 5; h++ {
				table = append(table, Hour{Hour: h, HostBytes: 1 << 20, NANDBytes: 2 << 20})
			}
			res.Tables[i], res.Last[i] = table, table[1:]
			c := float64(capacity)
			res.Facts[i] = RunFacts{DriveTurns: &turns, Capacity: &c}
		}
		j := &judgement{r: res, o: o.withDefaults(), unit: "hour", b: res.Facts[0], c: res.Facts[1]}
		checkWornIn(j)
		require.Len(t, j.v.Checks, 1)
		return j.v.Checks[0]
	}
	c := worn(2.39, 9.81, 3)
	require.Equal(t, Fail, c.Status, c.Detail)
	require.Contains(t, c.Detail, "2.39 vs 9.81 drive capacities of host writes from the run's start to the first compared hour")
	require.Contains(t, c.Detail, "they differ by 76% of the larger (tolerance 25%)")
	c = worn(0.4, 0.45, 0.2)
	require.Equal(t, Fail, c.Status, c.Detail)
	require.Contains(t, c.Detail, "below the minimum of 1")
	// A preconditioned drive (3 capacities of NAND writes before the run)
	// steady from its first rounds: worn in, the same wear.
	c = worn(0, 0.02, 3)
	require.Equal(t, Pass, c.Status, c.Detail)
	c = worn(2.39, 2.6, 3)
	require.Equal(t, Pass, c.Status, c.Detail)
}

// TestTrendSaysWhichWay: the drift rule's line names the direction and the
// rounds, and holds within its limit.
func TestTrendSaysWhichWay(t *testing.T) {
	up := trendOf([]float64{1.00, 1.04, 1.08, 1.12}, 2, 5, 0.03)
	require.False(t, up.Held())
	require.Contains(t, up.String(), "still rising: +11.3%")
	require.Contains(t, up.String(), "over rounds 2–5")
	down := trendOf([]float64{1.12, 1.08, 1.04, 1.00}, 1, 4, 0.03)
	require.Contains(t, down.String(), "still falling: -11.3%")
	flat := trendOf([]float64{2.5, 2.52, 2.48, 2.5, 2.51}, 1, 5, 0.03)
	require.True(t, flat.Held(), flat.String())
	require.True(t, flat.HasCI && flat.Lo < flat.Drift && flat.Drift < flat.Hi)
	require.False(t, trendOf([]float64{2.5}, 1, 1, 0.03).Held(), "one round: no line, not held")
}

// TestOneRunEachNoPerfInterval: the rounds of one run per arm give the
// throughput no interval, however tight their spread, and the change is
// never significant; a caller with repetitions is pointed at its own
// interval between them.
func TestOneRunEachNoPerfInterval(t *testing.T) {
	o := DefaultOptions()
	o.LastHours, o.Checks.Placement = 8, PlacementOff
	res := newResult(o)
	for i, tps := range []float64{100, 110} {
		for h := 1; h <= 8; h++ {
			res.Tables[i] = append(res.Tables[i], Hour{Hour: h, HostBytes: 1 << 30, NANDBytes: 2.5 * (1 << 30)})
			v := tps * (1 + 0.001*float64(h%2))
			res.Facts[i].Txn = append(res.Facts[i].Txn, &v)
		}
	}
	sel, err := o.selectWindows(res.Tables)
	require.NoError(t, err)
	res.Last, res.SteadyAt, res.Trend, res.Perf = sel.Rounds, sel.SteadyAt, sel.Trend, sel.Rounds
	v := judge(res, o)
	require.InDelta(t, 0.10, v.Throughput.Est, 0.002)
	require.False(t, v.Throughput.OK)
	require.False(t, v.Throughput.Significant())
	require.Equal(t, OneRunEach, v.Throughput.Why)
	require.Contains(t, fmtInterval(v.Throughput), "one run each: give the plan `cycles: 3` for an interval")
	o.Reps = 3
	v = judge(res, o)
	require.False(t, v.Throughput.OK)
	require.Contains(t, v.Throughput.Why, "the interval between the 3 repetitions is the report's")
}
