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

// TestComparePlacementObserved: with the placement tracer's per-command
// counts, the placement check reads what reached the drive. A candidate
// whose writes carried a handle for 90% of the bytes passes; one at 10%
// (the hint died on the way) makes the comparison NOT VALID, whatever its
// WA.
func TestComparePlacementObserved(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	zero, high, low := 0.0, 0.9, 0.1
	runs := []comparetest.Run{
		{ID: "b", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(2.5, 8), Placed: &zero},
		{ID: "good", Scenario: "fdp", Start: t0.Add(10 * time.Hour), WA: comparetest.RepeatWA(2.2, 8), Placed: &high},
		{ID: "dead", Scenario: "fdp", Start: t0.Add(20 * time.Hour), WA: comparetest.RepeatWA(2.2, 8), Placed: &low},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	judge := func(cand string) (*compare.Result, string) {
		res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b", Candidate: cand, Device: "nvme0",
			LastHours: 6, From: t0.Add(-time.Hour), To: time.Now()})
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, res.Write(&out, false))
		return res, out.String()
	}
	res, out := judge("good")
	require.InDelta(t, 0.9, *res.Facts[1].PlacedShare, 1e-9)
	require.InDelta(t, 0, *res.Facts[0].PlacedShare, 1e-9)
	require.Contains(t, out, "pass    placement (observed)   90.0% of the candidate's and 0.0% of the baseline's write bytes carried a placement id")
	require.NotContains(t, out, "placement (inferred)")
	require.True(t, res.Verdict.Valid, out)

	res, out = judge("dead")
	require.False(t, res.Verdict.Valid)
	require.Contains(t, out, "FAIL    placement (observed)   only 10.0% of the candidate's write bytes carried a placement id")
	require.Contains(t, out, "NOT VALID: placement (observed)")
}
