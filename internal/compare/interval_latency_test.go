package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// logRun is n rounds of a positive, right-skewed figure (a round's p99
// latency): median·exp(e), e AR(1) with coefficient phi and innovation sd.
func logRun(r *rand.Rand, n int, median, phi, sd float64) []Pair {
	out := make([]Pair, n)
	e := 0.0
	for i := range out {
		e = phi*e + r.NormFloat64()*sd
		out[i] = Pair{Num: median * math.Exp(e), Den: 1}
	}
	return out
}

// TestIntervalLatencyCoverage: per-round p99 latencies spread as widely as
// the seed 000 e2e run's (a log sd of 0.3, AR(1) 0.3) over 12 rounds, the
// candidate 10% faster: the 95% interval of the change of the mean holds
// the true -10% in roughly 95% of 400 seeded trials (95.8% measured), and
// no lower end passes -100% (the linear-scale interval of the same trials
// did in 1 of 400).
func TestIntervalLatencyCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	const trials = 400
	hit := 0
	for range trials {
		// Same log-sd in both runs: the means' ratio is the medians'.
		iv := BatchMeans{}.RelChange(logRun(r, 12, 0.080, 0.3, 0.3), logRun(r, 12, 0.072, 0.3, 0.3))
		require.True(t, iv.OK)
		require.Greater(t, iv.Lo, -1.0)
		if iv.Lo <= -0.10 && -0.10 <= iv.Hi {
			hit++
		}
	}
	cover := float64(hit) / trials
	t.Logf("coverage %.3f", cover)
	require.GreaterOrEqual(t, cover, 0.92)
	require.LessOrEqual(t, cover, 0.985)
}

// TestIntervalNeverBelowMinus100: a spread far wider than the change
// (rounds from 10 ms to 1 s) gives a wide interval whose lower end is still
// above -100%; a candidate of 0 gives no interval rather than a wrong one.
func TestIntervalNeverBelowMinus100(t *testing.T) {
	base := []Pair{{0.01, 1}, {1, 1}, {0.02, 1}, {0.9, 1}, {0.01, 1}, {1, 1}}
	cand := []Pair{{0.01, 1}, {0.5, 1}, {0.01, 1}, {0.02, 1}, {0.01, 1}, {0.6, 1}}
	iv := BatchMeans{Batch: 1}.RelChange(base, cand)
	require.True(t, iv.OK)
	require.Greater(t, iv.Lo, -1.0)
	require.Less(t, iv.Lo, iv.Est)
	require.Greater(t, iv.Hi, iv.Est)
	zero := BatchMeans{Batch: 1}.RelChange(base, []Pair{{0, 1}, {0, 1}})
	require.False(t, zero.OK)
	require.InDelta(t, -1, zero.Est, 1e-12)
	require.Contains(t, zero.Why, "candidate figure 0")
}
