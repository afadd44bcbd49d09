package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestVerdictAAandAB is the short A/A and A/B check of the verdict on the
// whole pipeline (simulated drive, loadgen TPC-C, a private mariadbd, a
// real Prometheus, walab compare): two placement-off windows of one run
// agree, an off and an on window differ by the simulator's placement
// effect, and a --rate limit lowered by 10% shows as -10% throughput.
// The bounds are wide enough to hold on a loaded machine; the error rates
// themselves are measured by bench/verdict-error-rates.sh (docs/compare.md).
func TestVerdictAAandAB(t *testing.T) {
	const rounds, round = 6, 2 * time.Second
	h := startRatesLab(t)
	starts := h.alternate(t, "vc-windows", 3, rounds, round) // off, on, off
	win := func(w int) *[2]time.Time { return windowRange(starts[w], rounds, round) }
	aa := h.compare(t, "aa", win(0), win(2), rounds, "off")
	ab := h.compare(t, "placement", win(0), win(1), rounds, "differs")
	rt := h.ratePair(t, "vc-rate", 40, rounds, round)
	for _, p := range []pairResult{aa, ab, rt} {
		t.Logf("%s: valid %t %s; WA %+.2f%% [%+.2f, %+.2f]; throughput %+.2f%% [%+.2f, %+.2f] (rounds %s vs %s transactions/s); p99 [%+.1f, %+.1f]", p.kind, p.valid, p.reasons,
			100*p.wa.Est, 100*p.wa.Lo, 100*p.wa.Hi, 100*p.tput.Est, 100*p.tput.Lo, 100*p.tput.Hi, p.roundsTPS[0], p.roundsTPS[1], 100*p.p99.Lo, 100*p.p99.Hi)
		require.True(t, p.valid, "%s: %s", p.kind, p.reasons)
		require.True(t, p.tput.OK, p.kind)
		if p.p99.OK {
			require.Greater(t, p.p99.Lo, -1.0, "%s: a latency interval below -100%%", p.kind)
		}
	}
	// A/A: WA within a few percent (the placement effect is about -20%).
	require.InDelta(t, 0, aa.wa.Est, 0.04)
	// A/B placement: WA lower, the interval excludes 0 and is about the model's effect.
	require.True(t, ab.wa.Significant() && ab.wa.Hi < 0, "placement not detected: %+v", ab.wa)
	require.Greater(t, ab.wa.Est, -0.40)
	require.Less(t, ab.wa.Est, -0.08)
	// A/B rate: 40 -> 36 transactions/s scheduled: -10%, detected.
	require.InDelta(t, -0.10, rt.tput.Est, 0.03)
	require.True(t, rt.tput.Significant() && rt.tput.Hi < 0, "rate change not detected: %+v", rt.tput)
}
