package report

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment/state"
)

func repGroup(run string, tps ...float64) *Group {
	g := &Group{Run: run}
	for i, v := range tps {
		g.Runs = append(g.Runs, state.RunRecord{Run: run, Rep: i + 1, TPS: &v})
	}
	g.TPS = summarise(g.Runs, func(r state.RunRecord) *float64 { return r.TPS })
	return g
}

// TestRepsThroughput: three repetitions a side, equal relative spread, so
// Welch's degrees of freedom are exactly 4 (t = 2.776): 100 → 110 TPS,
// +10% [-12.31, +37.99] (computed by hand from the delta method on the log
// of the ratio). One repetition a side gives no interval and says why.
func TestRepsThroughput(t *testing.T) {
	iv := repsThroughput(repGroup("a", 90, 100, 110), repGroup("b", 99, 110, 121))
	require.True(t, iv.OK, iv.Why)
	require.InDelta(t, 0.10, iv.Est, 1e-12)
	require.InDelta(t, -0.12312042763, iv.Lo, 1e-6)
	require.InDelta(t, 0.37989301853, iv.Hi, 1e-6)

	iv = repsThroughput(repGroup("a", 100), repGroup("b", 99, 110))
	require.False(t, iv.OK)
	require.Equal(t, "1 and 2 repetitions with a throughput: fewer than 2 a side", iv.Why)

	var b strings.Builder
	reportWholeRunThroughput(&b, repGroup("a", 90, 100, 110), repGroup("b", 99, 110, 121))
	require.Equal(t, "- Throughput over whole runs (loadgen's summary, mean of 3 and 3 repetitions): 100.0 → 110.0 TPS, +10.0% [-12.3, +38.0] between repetitions not significant.\n"+
		"- The interval between repetitions comes from the spread of whole runs: unlike the verdict's (the spread of rounds within each run), it holds a load change from one run to the next.\n", b.String())
}

// TestRepsIntervalHoldsRunLevelShifts: A/A pairs of runs whose level
// shifts from run to run (the load steps the error-rate bench found on a
// shared machine: each run's throughput scaled by exp(N(0, 0.08))), with
// AR(1) noise between 12 rounds of a run. The verdict's interval, from the
// rounds of one run a side, calls most such pairs significant; the
// interval between 3 repetitions a side calls about 5 %, as it should.
func TestRepsIntervalHoldsRunLevelShifts(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	run := func() []compare.Pair {
		level := 1000 * math.Exp(0.08*rng.NormFloat64())
		ps, e := make([]compare.Pair, 12), 0.0
		for i := range ps {
			e = 0.5*e + 0.03*rng.NormFloat64()
			ps[i] = compare.Pair{Num: level * (1 + e), Den: 1}
		}
		return ps
	}
	whole := func(ps []compare.Pair) float64 {
		var s float64
		for _, p := range ps {
			s += p.Num
		}
		return s / float64(len(ps))
	}
	const trials = 1000
	var roundsCalls, repsCalls int
	for range trials {
		var a, b []float64
		var ra, rb []compare.Pair
		for range 3 {
			ra, rb = run(), run()
			a, b = append(a, whole(ra)), append(b, whole(rb))
		}
		if (compare.BatchMeans{}).RelChange(ra, rb).Significant() {
			roundsCalls++
		}
		if repsThroughput(repGroup("a", a...), repGroup("b", b...)).Significant() {
			repsCalls++
		}
	}
	t.Logf("A/A called significant: rounds of one run %d/%d, between 3 repetitions %d/%d", roundsCalls, trials, repsCalls, trials)
	require.Greater(t, roundsCalls, trials/2, "the rounds' interval does not see a run's level")
	require.LessOrEqual(t, repsCalls, trials*7/100)
	require.GreaterOrEqual(t, repsCalls, trials*15/1000, "an interval too wide to call anything")
}

// TestOneRunEachHasNoInterval: with one run per arm (cycles: 1) the
// whole-run throughput and tpmC changes print without an interval and ask
// for cycles: 3; with three repetitions a side both get the interval
// between repetitions.
func TestOneRunEachHasNoInterval(t *testing.T) {
	withTpmC := func(g *Group) *Group {
		for i := range g.Runs {
			v := *g.Runs[i].TPS * 27
			g.Runs[i].TpmC = &v
		}
		g.TpmC = summarise(g.Runs, func(r state.RunRecord) *float64 { return r.TpmC })
		return g
	}
	var one strings.Builder
	reportWholeRunThroughput(&one, withTpmC(repGroup("a", 100)), withTpmC(repGroup("b", 110)))
	require.Equal(t, "- Throughput over whole runs (loadgen's summary): 100.0 → 110.0 TPS, +10.0%; tpmC 2700 → 2970, +10.0%.\n"+
		"- No interval between runs (1 and 1 repetitions with a throughput: fewer than 2 a side): one run each: give the plan `cycles: 3` for an interval (the runs alternate); the spread of rounds within one run measures the machine's load during it, not the setting, so the verdict gives throughput and tpmC none either.\n", one.String())
	require.NotContains(t, one.String(), "[")

	var three strings.Builder
	reportWholeRunThroughput(&three, withTpmC(repGroup("a", 90, 100, 110)), withTpmC(repGroup("b", 99, 110, 121)))
	require.Contains(t, three.String(), "+10.0% [-12.3, +38.0] between repetitions not significant")
	require.Contains(t, three.String(), "tpmC 2700 → 2970, +10.0% [-12.3, +38.0] between repetitions")
}
