package compare_test

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/compare/comparetest"
)

// TestCompareNonFiniteRounds: a store answering a round's NAND increase as
// +Inf or NaN, or a host round as NaN (a broken exporter's sample, served
// by a real Prometheus), makes that round missing, with the reason, and the
// comparison NOT VALID; a NaN host round is not idle. Every figure printed
// or written stays finite.
func TestCompareNonFiniteRounds(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	base := append([]float64{2, 2}, comparetest.RepeatWA(2.5, 12)...)
	cand := comparetest.RepeatWA(2.2, 14)
	runs := []comparetest.Run{
		{ID: "b1", Scenario: "baseline", Start: t0, WA: base, BadNAND: map[int]float64{8: math.Inf(1)}},
		{ID: "c1", Scenario: "streams", Start: t0.Add(20 * time.Hour), WA: cand, BadHost: map[int]float64{9: math.NaN()}},
		{ID: "c2", Scenario: "streams", Start: t0.Add(40 * time.Hour), WA: cand, BadNAND: map[int]float64{10: math.NaN()}},
	}
	papi := comparetest.StartPrometheus(t, runs)
	for _, tc := range []struct {
		cand      string
		role      int
		hour      int
		reason    string
		otherSide int // the other run's bad hour
	}{
		{"c1", 1, 9, "host", 8},
		{"c2", 1, 10, "NAND", 8},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b1", Candidate: tc.cand, Device: "nvme0",
			From: t0.Add(-time.Hour), To: time.Now()})
		cancel()
		require.NoError(t, err)
		h := res.Tables[tc.role][tc.hour-1]
		require.Contains(t, h.Missing, "not a finite number", "%s hour %d: %+v", tc.cand, tc.hour, h)
		require.Contains(t, h.Missing, tc.reason)
		require.Contains(t, res.Tables[0][tc.otherSide-1].Missing, "NAND counter increase is +Inf")
		require.False(t, res.Verdict.Valid, "%+v", res.Verdict)
		require.Contains(t, strings.Join(res.Verdict.Reasons, "\n"), "baseline complete")
		for i := range res.WA {
			require.False(t, math.IsNaN(res.WA[i]) || math.IsInf(res.WA[i], 0), "WA %v", res.WA[i])
		}
		var out, js bytes.Buffer
		require.NoError(t, res.Write(&out, false))
		require.True(t, strings.HasPrefix(out.String(), "NOT VALID"), out.String())
		require.NotRegexp(t, `(?i)(WA|reduction|%)[^\n(]*\b(nan|inf)\b`, out.String(), "a figure printed as NaN or Inf")
		require.NoError(t, res.WriteJSON(&js), "JSON of a comparison with non-finite input")
	}
}

// TestCompareAllNANDNonFinite: a run whose every NAND round is NaN has
// host writes but no trustworthy round: compare says so with the reason,
// not "no round with host writes" (issue 54, a residual of issue 33).
func TestCompareAllNANDNonFinite(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	bad := map[int]float64{}
	for h := 1; h <= 6; h++ {
		bad[h] = math.NaN()
	}
	runs := []comparetest.Run{
		{ID: "b1", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(2.5, 6), BadNAND: bad},
		{ID: "c1", Scenario: "streams", Start: t0.Add(20 * time.Hour), WA: comparetest.RepeatWA(2.2, 6)},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b1", Candidate: "c1", Device: "nvme0",
		From: t0.Add(-time.Hour), To: time.Now()})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "no round with host writes")
	require.Contains(t, err.Error(), "not a finite number")
}
