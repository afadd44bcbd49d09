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
		res.Last[i], res.Perf[i] = res.Tables[i], res.Tables[i]
		res.SteadyAt[i] = 1
		res.WA[i] = AggregateWA(res.Last[i])
	}
	v := judge(res, o)
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
