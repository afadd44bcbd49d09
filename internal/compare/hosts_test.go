package compare_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/compare/comparetest"
)

// TestCompareDeviceOnTwoHosts: while the baseline ran on host h1, nvme0 of
// host h2 wrote too (another run, WA 4). Without --instance the device is
// refused, naming both hosts, instead of summing them; with it, each run's
// WA is its own host's.
func TestCompareDeviceOnTwoHosts(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	runs := []comparetest.Run{
		{ID: "b1", Scenario: "baseline", Start: t0, Instance: "h1:10131", WA: append([]float64{2, 2}, comparetest.RepeatWA(2.5, 12)...)},
		{ID: "other", Scenario: "other", Start: t0, Instance: "h2:10131", WA: comparetest.RepeatWA(4, 14)},
		{ID: "c1", Scenario: "streams", Start: t0.Add(30 * time.Hour), Instance: "h1:10131", WA: append([]float64{2, 2}, comparetest.RepeatWA(2.2, 12)...)},
	}
	papi := comparetest.StartPrometheus(t, runs)
	o := compare.Options{Baseline: "b1", Candidate: "c1", Device: "nvme0", From: t0.Add(-time.Hour), To: time.Now()}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := compare.Compare(ctx, compare.Source{API: papi}, o)
	require.ErrorContains(t, err, `device nvme0 has counters from 2 hosts (instance="h1:10131" job="", instance="h2:10131" job="")`)
	require.ErrorContains(t, err, "--instance")

	res, err := compare.Compare(ctx, compare.Source{API: papi, Instance: "h1:10131"}, o)
	require.NoError(t, err)
	require.InDelta(t, 2.5, res.WA[0], 1e-9)
	require.InDelta(t, 2.2, res.WA[1], 1e-9)
	require.InDelta(t, 60*compare.MiB, res.Tables[0][5].HostBytes, 1e-3, "host bytes of one host, not two")
}
