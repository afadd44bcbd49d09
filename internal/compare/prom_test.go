package compare_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/compare/comparetest"
)

// TestCompareAgainstPrometheus: a baseline (WA 2 warming up, then 2.5) and
// a streams run 30 hours later (WA 2.2 after warm-up, one idle hour) give
// seed 000's 12 % reduction over the last 12 non-zero hours.
func TestCompareAgainstPrometheus(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	cand := append([]float64{2, 2, 2.2, 2.2, 0}, comparetest.RepeatWA(2.2, 10)...)
	runs := []comparetest.Run{
		{ID: "b1", Scenario: "baseline", Start: t0, WA: append([]float64{2, 2}, comparetest.RepeatWA(2.5, 12)...)},
		{ID: "c1", Scenario: "streams", Start: t0.Add(30*time.Hour + 17*time.Minute), WA: cand},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b1", Candidate: "c1", Device: "nvme0",
		From: t0.Add(-time.Hour), To: time.Now()})
	require.NoError(t, err)

	require.Equal(t, t0, res.Runs[0].Start)
	require.Equal(t, t0.Add(14*time.Hour), res.Runs[0].End)
	require.Equal(t, "streams", res.Runs[1].Scenario)
	require.Len(t, res.Tables[0], 14)
	require.Len(t, res.Tables[1], 15)
	for i, h := range res.Tables[0] {
		require.Equal(t, i+1, h.Hour)
		require.InDelta(t, 60*compare.MiB, h.HostBytes, 1e-3)
		require.InDelta(t, runs[0].WA[i], h.WA(), 1e-9, "baseline hour %d", h.Hour)
	}
	require.False(t, res.Tables[1][4].NonZero(), "candidate hour 5 is idle")
	// Equal windows: the rounds both runs have from the later steady start
	// (hour 3) on, the candidate's idle hour 5 left out of both: 11 rounds.
	require.Len(t, res.Last[1], 11)
	require.Equal(t, 3, res.Last[1][0].Hour)
	for k := range res.Last[1] {
		require.Equal(t, res.Last[0][k].Hour, res.Last[1][k].Hour)
	}
	require.InDelta(t, 2.5, res.WA[0], 1e-9)
	require.InDelta(t, 2.2, res.WA[1], 1e-9)
	require.InDelta(t, 0.12, res.Reduction, 1e-9)

	require.Equal(t, [2]int{3, 2}, res.SteadyAt, "baseline steady once the 2.0 hours leave the window; candidate from hour 2")
	require.True(t, res.Verdict.Valid, "%+v", res.Verdict)
	require.InDelta(t, -0.12, res.Verdict.WA.Est, 1e-9)
	require.True(t, res.Verdict.WA.Significant())

	var out bytes.Buffer
	require.NoError(t, res.Write(&out, false))
	require.True(t, strings.HasPrefix(out.String(), "VALID  WA -12.0% [-12.0, -12.0] (steady from h3 / h2)"), out.String())
	require.Contains(t, out.String(), "unknown same drive")
	require.Contains(t, out.String(), "WA reduction (baseline - candidate) / baseline: 12.00%")
	require.Contains(t, out.String(), `reference_wa for this baseline: {"nvme0": 2.500}`)
}

// TestCompareMissingNANDHours: two runs with the same WA 2.5, the candidate
// with three hours where the drive's NAND source was down (walab exports no
// NAND counter then). Counting those hours as WA 0 once turned "no change"
// into a "42.29 %" reduction; they are reported missing and left out.
func TestCompareMissingNANDHours(t *testing.T) {
	t0 := time.Now().Add(-60 * time.Hour).Truncate(time.Hour).UTC()
	runs := []comparetest.Run{
		{ID: "b1", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(2.5, 14)},
		{ID: "c1", Scenario: "streams", Start: t0.Add(20 * time.Hour), WA: comparetest.RepeatWA(2.5, 14), NoNAND: []int{9, 10, 11}},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b1", Candidate: "c1", Device: "nvme0",
		From: t0.Add(-time.Hour), To: time.Now()})
	require.NoError(t, err)
	require.Len(t, res.Tables[1], 14, "every hour of the run is in the table")
	var missing []int
	for _, h := range res.Missing[1] {
		missing = append(missing, h.Hour)
		require.Contains(t, h.Missing, "no NAND data")
		require.Zero(t, h.NANDBytes)
	}
	require.Equal(t, []int{9, 10, 11}, missing)
	require.Empty(t, res.Missing[0])
	require.True(t, res.Incomplete())
	require.Len(t, res.Last[1], 11, "the 11 complete hours, not 12 with missing ones among them")
	require.InDelta(t, 2.5, res.WA[1], 1e-9)
	require.InDelta(t, 0, res.Reduction, 1e-9)

	require.False(t, res.Verdict.Valid)
	var out bytes.Buffer
	require.NoError(t, res.Write(&out, false))
	require.True(t, strings.HasPrefix(out.String(), "NOT VALID: candidate complete: 3 of 14 hours without NAND/host data (9, 10, 11)"), out.String())
	require.NotContains(t, out.String(), "WA reduction")
	out.Reset()
	require.NoError(t, res.Write(&out, true))
	require.Contains(t, out.String(), "MISSING: 3 of 14 hours have no trustworthy NAND/host figures (hours 9, 10, 11)")
	require.Contains(t, out.String(), "WA reduction (baseline - candidate) / baseline: 0.00%")
	require.NotContains(t, out.String(), "42.29")
}

func TestCompareErrors(t *testing.T) {
	t0 := time.Now().Add(-10 * time.Hour).Truncate(time.Hour)
	papi := comparetest.StartPrometheus(t, []comparetest.Run{{ID: "short", Scenario: "baseline", Start: t0, WA: []float64{0.0}}})
	ctx := context.Background()
	src := compare.Source{API: papi}
	tests := []struct {
		name, baseline, want string
	}{
		{"unknown run", "nope", "no walab_loadgen_run_info"},
		{"bad id", `x"}`, "only letters"},
		{"idle run", "short", "no round with host writes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compare.Compare(ctx, src, compare.Options{Baseline: tt.baseline, Candidate: "short", Device: "nvme0", From: t0.Add(-time.Hour), To: time.Now()})
			require.ErrorContains(t, err, tt.want)
		})
	}
}
