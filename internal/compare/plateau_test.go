package compare_test

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/compare/comparetest"
)

// The two arms of `make run` (WA per 10-s round), both still
// climbing when the verdict called them steady and VALID.
var (
	climbingBaseline = []float64{1.00, 1.05, 1.19, 1.28, 1.35, 1.38, 1.41, 1.42, 1.41}
	climbingStreams  = []float64{1.00, 1.01, 1.06, 1.11, 1.10, 1.11, 1.14, 1.16, 1.16}
)

// plateau is a short climb, then a plateau at wa with ±1.5 % of noise.
func plateau(wa float64, n int) []float64 {
	noise := []float64{0, 0.015, -0.01, 0.005, -0.015, 0.01, -0.005, 0.015, -0.01, 0}
	out := []float64{0.8 * wa, 0.9 * wa}
	for i := range n {
		out = append(out, wa*(1+noise[i%len(noise)]))
	}
	return out
}

// TestCompareStillRising: fed the climbing series, which SNIA's
// rule passes (steady from rounds 4 and 2), compare says "still rising"
// and NOT VALID over equal windows; a plateau with noise passes, over
// equal windows too. The report's per-round table is read back and the
// drift rule recomputed here, apart from compare's code.
func TestCompareStillRising(t *testing.T) {
	t0 := time.Now().Add(-96 * time.Hour).Truncate(time.Hour).UTC()
	runs := []comparetest.Run{
		{ID: "climb-b", Scenario: "baseline", Start: t0, WA: climbingBaseline},
		{ID: "climb-c", Scenario: "streams", Start: t0.Add(12 * time.Hour), WA: climbingStreams},
		{ID: "flat-b", Scenario: "baseline", Start: t0.Add(24 * time.Hour), WA: plateau(2.5, 12)},
		{ID: "flat-c", Scenario: "streams", Start: t0.Add(40 * time.Hour), WA: plateau(2.2, 13)},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	judge := func(b, c string) (*compare.Result, string) {
		res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: b, Candidate: c, Device: "nvme0",
			From: t0.Add(-time.Hour), To: time.Now(), Checks: compare.CheckOptions{Placement: "off"}})
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, res.Write(&out, true))
		return res, out.String()
	}

	res, out := judge("climb-b", "climb-c")
	t.Log(out)
	require.Equal(t, [2]int{4, 2}, res.SteadyAt, "SNIA's rule alone passes the climb\n%s", out)
	require.False(t, res.Verdict.Valid, out)
	require.True(t, strings.HasPrefix(out, "NOT VALID"), out)
	require.Contains(t, out, "FAIL    baseline steady        WA still rising: +9.2%", out)
	require.Contains(t, out, "over rounds 4–9", out)
	requireEqualWindows(t, res)
	drifts := perRoundDrift(t, out)
	require.Contains(t, drifts, "baseline")
	require.Greater(t, drifts["baseline"], 0.03, "recomputed from the report's table")

	res, out = judge("flat-b", "flat-c")
	require.True(t, res.Verdict.Valid, out)
	require.Contains(t, out, "pass    equal windows", out)
	requireEqualWindows(t, res)
	require.Len(t, res.Last[0], 12, out)
	drifts = perRoundDrift(t, out)
	require.Len(t, drifts, 2)
	for arm, drift := range drifts {
		require.LessOrEqual(t, math.Abs(drift), 0.03, "%s, recomputed from the report's table", arm)
	}
}

// requireEqualWindows: both arms' compared rounds are the same rounds, and
// the chart shades exactly them.
func requireEqualWindows(t *testing.T, res *compare.Result) {
	t.Helper()
	require.Equal(t, len(res.Last[0]), len(res.Last[1]))
	for k := range res.Last[0] {
		require.Equal(t, res.Last[0][k].Hour, res.Last[1][k].Hour)
	}
	for i, s := range res.ChartSeries() {
		l := res.Last[i]
		require.Equal(t, [2]int{l[0].Hour, l[len(l)-1].Hour}, s.Compared)
	}
}

// perRoundDrift reads the report's "compared hours, one line each" table
// and returns each arm's drift over its rounds: the least-squares line's
// rise from its first to its last round as a share of the rounds' mean.
func perRoundDrift(t *testing.T, report string) map[string]float64 {
	t.Helper()
	was := map[string][]float64{}
	in := false
	sc := bufio.NewScanner(strings.NewReader(report))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "compared hours, one line each") {
			in = true
			continue
		}
		f := strings.Fields(line)
		if !in || len(f) < 3 || (f[0] != "baseline" && f[0] != "candidate") {
			if in && len(f) == 0 {
				break
			}
			continue
		}
		wa, err := strconv.ParseFloat(f[2], 64)
		require.NoError(t, err, line)
		was[f[0]] = append(was[f[0]], wa)
	}
	out := map[string]float64{}
	for arm, ys := range was {
		n := float64(len(ys))
		var sx, sy, sxy, sxx float64
		for i, y := range ys {
			x := float64(i)
			sx, sy, sxy, sxx = sx+x, sy+y, sxy+x*y, sxx+x*x
		}
		b := (n*sxy - sx*sy) / (n*sxx - sx*sx)
		out[arm] = b * (n - 1) / (sy / n)
	}
	return out
}

// TestCompareThroughputStillFalling: throughput gets the same rule. A
// candidate whose transactions per round fall 1 % a round passes SNIA's
// rule from its first round (each 5-round window moves 4 %), but over the
// compared rounds its line falls about 11 %: the check warns "still
// falling", and the performance changes have no interval for that reason.
// The WA verdict stands.
func TestCompareThroughputStillFalling(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	falling := map[int]float64{}
	for h := 1; h <= 12; h++ {
		falling[h] = 1 - 0.01*float64(h-1)
	}
	runs := []comparetest.Run{
		{ID: "b", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(2.5, 12), TxnPerMin: 600, Terminals: 4},
		{ID: "c", Scenario: "streams", Start: t0.Add(14 * time.Hour), WA: comparetest.RepeatWA(2.2, 12), TxnPerMin: 600, Terminals: 4, TxnScale: falling},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b", Candidate: "c", Device: "nvme0",
		From: t0.Add(-time.Hour), To: time.Now(), Checks: compare.CheckOptions{Placement: "off"}})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, res.Write(&out, true))
	require.True(t, res.Verdict.Valid, out.String())
	require.Equal(t, 1, res.ThroughputSteady[1].From, "SNIA's rule passes the fall")
	require.Contains(t, out.String(), "warn    candidate TPS steady   transactions per hour still falling: -11.", out.String())
	require.Equal(t, "candidate throughput not steady", res.Verdict.Throughput.Why)
	require.False(t, res.Verdict.Throughput.Significant())
}
