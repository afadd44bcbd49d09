package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// TestReportThroughputHeadline: the headline's throughput change is the
// verdict's (over the compared rounds); the whole-run figure is labelled as
// such, with why it differs, and without repetitions it says that no
// interval between runs exists.
func TestReportThroughputHeadline(t *testing.T) {
	in := &Input{Plan: &plan.Plan{Compare: &plan.Compare{Baseline: "a", Candidate: "b"}}, State: &state.State{
		Compare: &state.CompareRecord{Baseline: "a", Candidate: "b", Text: "VALID ...\n", Rounds: &state.RoundsThroughput{
			Baseline: 800, Candidate: 760, RoundSeconds: 5, FirstCompared: [2]int{3, 3}, LastCompared: [2]int{14, 14},
			Change: compare.Interval{Est: -0.05, Lo: -0.09, Hi: -0.01, OK: true},
		}},
	}}
	groups := []Group{*repGroup("a", 821.4), *repGroup("b", 786.1)}
	var b strings.Builder
	in.reportVerdict(&b, groups)
	r := b.String()
	require.Contains(t, r, "- Throughput over the compared rounds (the verdict's figure: rounds 3–14 of the baseline, 3–14 of the candidate, 5s each): 800.0 → 760.0 TPS, **-5.0%** [-9.0, -1.0].\n")
	require.Contains(t, r, "- Throughput over whole runs (loadgen's summary): 821.4 → 786.1 TPS, -4.3%")
	require.NotContains(t, r, "**-4.3%**", "only the verdict's change is the headline")
	require.Contains(t, r, "include every round from the first transaction to the last")
	require.Contains(t, r, "- No interval between runs (1 and 1 repetitions with a throughput: fewer than 2 a side): one run each: give the plan `cycles: 3` for an interval (the runs alternate); the spread of rounds within one run measures the machine's load during it, not the setting, so the verdict gives throughput and tpmC none either.\n")

	in.State.Compare.Rounds = nil // no per-round figures: only the whole-run line, labelled
	b.Reset()
	in.reportVerdict(&b, groups)
	require.NotContains(t, b.String(), "compared rounds (the verdict's figure")
	require.Contains(t, b.String(), "Throughput over whole runs")
}

// TestRoundsThroughputWithoutFigure: a compared round without a throughput
// figure leaves the headline standing, over the rounds that have one (the
// verdict's), and the headline says how many.
func TestRoundsThroughputWithoutFigure(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	hours := []compare.Hour{{Hour: 3}, {Hour: 4}, {Hour: 5}, {Hour: 6}}
	res := &compare.Result{Round: 5 * time.Second, Perf: [2][]compare.Hour{hours, hours}}
	res.Facts[0].Txn = []*float64{f(5000), nil, f(6000), f(5500)}
	res.Facts[1].Txn = []*float64{f(6050), f(6050), f(6050), f(6050)}
	res.Verdict.Throughput = compare.Interval{Est: 0.10}
	rt := RoundsThroughput(res)
	require.NotNil(t, rt)
	require.InDelta(t, 1100, rt.Baseline, 1e-9)
	require.Equal(t, [2]int{3, 4}, rt.WithFigure)
	require.Equal(t, [2]int{4, 4}, rt.Compared)

	var b strings.Builder
	(&Input{State: &state.State{Compare: &state.CompareRecord{Rounds: rt}}}).reportRoundsThroughput(&b)
	require.Equal(t, "- Throughput over the compared rounds (the verdict's figure: rounds 3–6 of the baseline, 3–6 of the candidate, 5s each; over the rounds with a figure: 3 of 4 baseline, 4 of 4 candidate): 1100.0 → 1210.0 TPS, **+10.0%**.\n", b.String())

	res.Facts[0].Txn = []*float64{nil, nil, nil, nil}
	require.Nil(t, RoundsThroughput(res), "no round with a figure: no headline")
}
