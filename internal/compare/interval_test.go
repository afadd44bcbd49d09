package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// arRun is n rounds of WA true*(1+noise), the noise AR(1) with coefficient
// phi and innovation sd, host bytes constant.
func arRun(r *rand.Rand, n int, true_, phi, sd float64) []Pair {
	out := make([]Pair, n)
	e := 0.0
	for i := range out {
		e = phi*e + r.NormFloat64()*sd
		out[i] = Pair{Num: true_ * (1 + e), Den: 1}
	}
	return out
}

// TestIntervalCoverage: over 400 seeded trials with a known true change of
// -12% (WA 2.5 -> 2.2, AR(1) noise with coefficient 0.5 over 24 rounds),
// the 95% interval holds the truth in roughly 95% of them (95.0% measured).
func TestIntervalCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	const trials = 400
	hit := 0
	for range trials {
		base := arRun(r, 24, 2.5, 0.5, 0.03)
		cand := arRun(r, 24, 2.2, 0.5, 0.03)
		iv := BatchMeans{}.RelChange(base, cand)
		require.True(t, iv.OK)
		if iv.Lo <= -0.12 && -0.12 <= iv.Hi {
			hit++
		}
	}
	cover := float64(hit) / trials
	t.Logf("coverage %.3f", cover)
	require.GreaterOrEqual(t, cover, 0.92)
	require.LessOrEqual(t, cover, 0.985)
}

// TestIntervalNull: the same distribution for both runs is "not
// significant" in most trials (about 5% expected).
func TestIntervalNull(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	sig := 0
	for range 200 {
		iv := BatchMeans{}.RelChange(arRun(r, 24, 2.5, 0.5, 0.03), arRun(r, 24, 2.5, 0.5, 0.03))
		if iv.Significant() {
			sig++
		}
	}
	t.Logf("significant in %d of 200 null trials", sig)
	require.LessOrEqual(t, sig, 20)
}

func TestIntervalDeterministicAndDegenerate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base, cand := arRun(r, 12, 2.5, 0.3, 0.05), arRun(r, 12, 2.2, 0.3, 0.05)
	a := BatchMeans{}.RelChange(base, cand)
	b := BatchMeans{}.RelChange(base, cand)
	require.Equal(t, a, b)
	require.True(t, a.Significant())
	require.Less(t, a.Lo, a.Est)
	require.Greater(t, a.Hi, a.Est)

	flat := BatchMeans{Batch: 1}.RelChange(WAPairs(hours(2.5, 2.5, 2.5)), WAPairs(hours(2.25, 2.25, 2.25)))
	require.InDelta(t, -0.10, flat.Est, 1e-12)
	require.InDelta(t, -0.10, flat.Lo, 1e-12)
	require.InDelta(t, -0.10, flat.Hi, 1e-12)

	require.False(t, BatchMeans{}.RelChange(nil, cand).OK)
	require.False(t, BatchMeans{}.RelChange([]Pair{{0, 1}}, cand).OK, "zero baseline")
	short := BatchMeans{}.RelChange(WAPairs(hours(2.5, 2.5)), WAPairs(hours(2.2, 2.2)))
	require.False(t, short.OK)
	require.Contains(t, short.Why, "fewer than 2 batches")
	require.False(t, math.IsNaN(a.Est))
}
