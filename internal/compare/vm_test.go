package compare_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/compare/comparetest"
)

// TestCompareAgainstVictoriaMetrics: the runs of TestCompareAgainstPrometheus
// imported into VictoriaMetrics (single node, from its Go module) give the
// same verdict through its Prometheus-compatible API: a lab whose metrics
// outgrow one Prometheus keeps walab compare.
func TestCompareAgainstVictoriaMetrics(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	cand := append([]float64{2, 2, 2.2, 2.2, 0}, comparetest.RepeatWA(2.2, 10)...)
	runs := []comparetest.Run{
		{ID: "b1", Scenario: "baseline", Start: t0, WA: append([]float64{2, 2}, comparetest.RepeatWA(2.5, 12)...)},
		{ID: "c1", Scenario: "streams", Start: t0.Add(30*time.Hour + 17*time.Minute), WA: cand},
	}
	c, err := api.NewClient(api.Config{Address: comparetest.StartVictoriaMetricsURL(t, runs)})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := compare.Compare(ctx, compare.Source{API: v1.NewAPI(c)}, compare.Options{Baseline: "b1", Candidate: "c1", Device: "nvme0",
		From: t0.Add(-time.Hour), To: time.Now()})
	require.NoError(t, err)
	require.Equal(t, t0, res.Runs[0].Start)
	require.Len(t, res.Tables[0], 14)
	require.Len(t, res.Tables[1], 15)
	require.InDelta(t, 2.5, res.WA[0], 1e-6)
	require.InDelta(t, 2.2, res.WA[1], 1e-6)
	require.InDelta(t, 0.12, res.Reduction, 1e-6)
	require.Equal(t, [2]int{3, 2}, res.SteadyAt)
	require.True(t, res.Verdict.Valid, "%+v", res.Verdict)
}
