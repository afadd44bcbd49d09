package ftl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLambertW0(t *testing.T) {
	for _, x := range []float64{-1 / math.E, -0.3678, -0.35, -0.2, -0.01, 0, 0.5, 1, math.E, 10, 1e6} {
		w := LambertW0(x)
		require.InDelta(t, x, w*math.Exp(w), 1e-9*(1+math.Abs(x)), "x=%v", x)
		require.GreaterOrEqual(t, w, -1.0)
	}
	require.InDelta(t, 0.5671432904097838, LambertW0(1), 1e-12) // the omega constant
	require.True(t, math.IsNaN(LambertW0(-0.5)))
	require.True(t, math.IsNaN(LambertW0(math.NaN())))
}

func TestUniformWAPublishedPoint(t *testing.T) {
	// Xiang and Kurkoski, arXiv:1110.4245, abstract: over-provisioning
	// factor 0.3 gives WA 2.36 from the expression (2.35 simulated).
	wa, err := UniformWA(1.3)
	require.NoError(t, err)
	require.InDelta(t, 2.36, wa, 0.005)
	_, err = UniformWA(1)
	require.Error(t, err)
	_, err = UniformWA(math.NaN())
	require.Error(t, err)
}

// steadyUniformWA fills the drive sequentially, then writes uniformly at
// random: warm turns of the logical space to reach steady state, then
// measures WA over measure turns.
func steadyUniformWA(t testing.TB, cfg Config, warm, measure int) float64 {
	m, err := New(cfg)
	require.NoError(t, err)
	for l := uint32(0); l < cfg.LogicalPages; l++ {
		must(t, m.Write(l, 0))
	}
	rng := rand.New(rand.NewPCG(7, 11))
	n := cfg.LogicalPages
	for i := 0; i < warm*int(n); i++ {
		must(t, m.Write(rng.Uint32N(n), 0))
	}
	before := m.Counters()
	for i := 0; i < measure*int(n); i++ {
		must(t, m.Write(rng.Uint32N(n), 0))
	}
	after := m.Counters()
	return float64(after.NANDPages-before.NANDPages) / float64(after.HostPages-before.HostPages)
}

// TestUniformWAMatchesAnalytic compares greedy GC under uniform random
// writes with UniformWA (Desnoyers, SYSTOR 2012, LRU/FIFO closed form; Xiang
// and Kurkoski, arXiv:1110.4245, greedy in the large-block limit) for several
// spare factors.
//
// Tolerance 5%: the analytic value is a limit for many pages per block and
// many blocks. With 256 pages per block, greedy's finite-block advantage (it
// beats the limit by 3-17% at 32 pages per block, see internal/ftl/doc.go) has
// shrunk to under 1%, and the few blocks held open or in reserve (3 of 20
// spare blocks at 7%) push WA the other way by about as much; measured
// deviations are within 1.5%.
func TestUniformWAMatchesAnalytic(t *testing.T) {
	for _, sf := range []float64{0.07, 0.10, 0.15, 0.20, 0.30} {
		cfg := Config{LogicalPages: 65536, BlockPages: 256, PageSize: 4096, SpareFactor: sf, Streams: 1}
		got := steadyUniformWA(t, cfg, 3, 3)
		want, err := UniformWA(AlphaFromSpare(sf))
		require.NoError(t, err)
		t.Logf("spare %.2f: simulated WA %.3f, analytic %.3f", sf, got, want)
		require.InEpsilon(t, want, got, 0.05, "spare factor %v", sf)
	}
}

// TestGreedyBeatsLimitWithSmallBlocks pins the finite-block effect: with few
// pages per block greedy finds emptier victims than the large-block limit.
func TestGreedyBeatsLimitWithSmallBlocks(t *testing.T) {
	cfg := Config{LogicalPages: 32768, BlockPages: 32, PageSize: 4096, SpareFactor: 0.1, Streams: 1}
	got := steadyUniformWA(t, cfg, 3, 2)
	want, err := UniformWA(AlphaFromSpare(0.1))
	require.NoError(t, err)
	require.Less(t, got, want*0.95)
	require.Greater(t, got, 1.0)
}
