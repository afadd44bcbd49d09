package compare_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/compare/comparetest"
	"github.com/walab/walab/internal/golden"
)

// TestCompareArray: seed 001's RAID 5 (2+1) chain from a real Prometheus:
// the baseline's RAID WA is 1.518 (48,915 array vs 74,284 member write
// IOPS), its drives write 2 NAND bytes per member byte (chain WA 3.036);
// the candidate's drives do 12% better, and a resync runs in its hour 8.
// compare --array prints array, member and NAND bytes per hour, keeps the
// resync hour out as missing, gives the RAID WA against the theory's 1.5
// (overhead 1.23% from the IOPS themselves; the seed's 1.19% rounds the WA
// to 1.518 first) and judges the chain's WA.
func TestCompareArray(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	const raid = 74284.0 / 48915
	base, cand := 2*raid, 2*raid*0.88
	runs := []comparetest.Run{
		{ID: "b1", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(base, 14), Array: &comparetest.Array{RAIDWA: raid}},
		{ID: "c1", Scenario: "streams", Start: t0.Add(20 * time.Hour), WA: comparetest.RepeatWA(cand, 16), Array: &comparetest.Array{RAIDWA: raid, SyncHours: []int{8}}},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b1", Candidate: "c1", Array: "md0",
		From: t0.Add(-time.Hour), To: time.Now(), Checks: compare.CheckOptions{Placement: "off"}})
	require.NoError(t, err)

	h := res.Tables[0][3]
	require.InDelta(t, 60*compare.MiB, h.HostBytes, 1e-3, "array bytes")
	require.InDelta(t, raid, h.RAIDWA(), 1e-9)
	require.InDelta(t, base, h.WA(), 1e-9, "array to NAND")
	require.Contains(t, res.Tables[1][7].Missing, "md sync")
	for _, m := range res.Missing[1] {
		require.Contains(t, []int{8, 9}, m.Hour, "only the resync hour (and the one sharing its last sample) is out")
	}
	require.InDelta(t, raid, compare.AggregateRAIDWA(res.Last[0]), 1e-9)
	require.InDelta(t, 0.12, res.Reduction, 1e-9)
	require.Empty(t, res.Facts[0].Serial, "no walab_nvme_info in this fixture: the same-drive check says unknown")
	require.Equal(t, 1.5, *res.Facts[0].RAIDTheory)

	var out bytes.Buffer
	require.NoError(t, res.Write(&out, true))
	text := out.String()
	t.Log(text)
	require.Contains(t, text, "hour     array_MB   members_MB  RAID_WA      NAND_MB       WA")
	require.Contains(t, text, "   4           60           91   1.5186          182  3.03727")
	require.Contains(t, text, "(an md sync (resync, check, recovery) ran in the round)")
	require.Contains(t, text, "RAID WA (member / array bytes) over those hours: 1.5186 against 1.5000 in theory: software overhead (WA - theory) / WA 1.23%")
	require.Contains(t, text, "WA here is array to NAND")
	require.True(t, strings.HasPrefix(text, "NOT VALID: candidate complete: 2 of 16 hours"), "a resync hour makes the run incomplete")
	require.NotContains(t, text, "reference_wa")
}

// TestCompareArrayLatencyGolden: seed 001's RAID latency overhead, the
// array's r_await and w_await minus its slowest member's, per run. The
// baseline's md0 answers reads in 0.50 ms and writes in 0.90 ms over
// members whose slowest takes 0.26 and 0.37 ms: 0.24 and 0.53 ms, the
// seed's figures. In the candidate one member has no read requests, so
// its read overhead is absent ("-"), not 0, and its write overhead is
// 0.80 - 0.35 = 0.45 ms. The whole output is against committed files.
func TestCompareArrayLatencyGolden(t *testing.T) {
	t0 := time.Date(2026, 9, 21, 13, 0, 0, 0, time.UTC)
	const raid = 74284.0 / 48915
	ms := func(xs ...float64) (out [4]float64) {
		for i, x := range xs {
			out[i] = x / 1000
		}
		return out
	}
	runs := []comparetest.Run{
		{ID: "b1", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(2*raid, 8),
			Array: &comparetest.Array{RAIDWA: raid, Await: &comparetest.ArrayAwait{Read: ms(0.50, 0.20, 0.26, 0.22), Write: ms(0.90, 0.30, 0.37, 0.33)}}},
		{ID: "c1", Scenario: "streams", Start: t0.Add(10 * time.Hour), WA: comparetest.RepeatWA(2*raid*0.9, 8),
			Array: &comparetest.Array{RAIDWA: raid, Await: &comparetest.ArrayAwait{Read: ms(0.50, 0.20, 0.26, 0), Write: ms(0.80, 0.30, 0.35, 0.32)}}},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b1", Candidate: "c1", Array: "md0", LastHours: 6,
		From: t0.Add(-time.Hour), To: t0.Add(48 * time.Hour), Checks: compare.CheckOptions{Placement: "off"}})
	require.NoError(t, err)

	b, c := res.Facts[0].RAIDLatency, res.Facts[1].RAIDLatency
	require.InDelta(t, 0.24e-3, *b.ReadOverhead(), 1e-9)
	require.InDelta(t, 0.53e-3, *b.WriteOverhead(), 1e-9)
	require.NotNil(t, c.ReadArraySec, "the array's own reads are known")
	require.Nil(t, c.ReadSlowestMemberSec, "a member without reads: the slowest is not known")
	require.Nil(t, c.ReadOverhead())
	require.InDelta(t, 0.45e-3, *c.WriteOverhead(), 1e-9)

	var text, js bytes.Buffer
	require.NoError(t, res.Write(&text, true))
	require.NoError(t, res.WriteJSON(&js))
	requireRow(t, text.String(), "RAID read latency overhead (ms)", "0.240", "-", "-")
	requireRow(t, text.String(), "RAID write latency overhead (ms)", "0.530", "0.450", "-15.1%")
	golden.Assert(t, filepath.Join("testdata", "compare_array.txt"), text.Bytes())
	golden.Assert(t, filepath.Join("testdata", "compare_array.json"), js.Bytes())
}
