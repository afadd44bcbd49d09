package compare

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAutoBatchCoverage: on 12 rounds per run (the seed 000 plan's), the
// chosen batch size keeps the 95% interval's coverage of the true -12%
// within a point or so of fixed sqrt(n) batches under AR(1) noise up to
// 0.5, and narrows the interval of independent rounds.
func TestAutoBatchCoverage(t *testing.T) {
	for _, phi := range []float64{0, 0.3, 0.5} {
		var hit [2]int
		var width [2]float64
		r := rand.New(rand.NewPCG(7, 7))
		const trials = 1000
		for range trials {
			b, c := arRun(r, 12, 2.5, phi, 0.03), arRun(r, 12, 2.2, phi, 0.03)
			for k, bm := range []BatchMeans{{}, {Batch: 4}} {
				iv := bm.RelChange(b, c)
				require.True(t, iv.OK)
				if iv.Lo <= -0.12 && -0.12 <= iv.Hi {
					hit[k]++
				}
				width[k] += iv.Hi - iv.Lo
			}
		}
		auto, fixed := float64(hit[0])/trials, float64(hit[1])/trials
		t.Logf("phi %.1f: coverage %.3f (sqrt(n) batches %.3f), mean width %.4f (%.4f)", phi, auto, fixed, width[0]/trials, width[1]/trials)
		require.GreaterOrEqual(t, auto, 0.90)
		require.GreaterOrEqual(t, auto, fixed-0.02)
		if phi == 0 {
			require.GreaterOrEqual(t, auto, 0.93)
			require.Less(t, width[0], 0.9*width[1])
		}
	}
}

func TestLag1(t *testing.T) {
	up := []Pair{{1, 1}, {2, 1}, {3, 1}, {4, 1}}
	alt := []Pair{{1, 1}, {3, 1}, {1, 1}, {3, 1}}
	require.Greater(t, lag1(up), 0.0)
	require.Less(t, lag1(alt), 0.0)
	require.Equal(t, 2, autoBatch(up, up))
	require.Equal(t, 1, autoBatch(alt, alt))
	require.Equal(t, 2, autoBatch([]Pair{{1, 1}, {1, 1}, {1, 1}}, up), "no spread: batches")
}
