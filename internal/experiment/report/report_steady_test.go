package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// TestReportUntilSteady: the comparison names how each until_steady run
// ended, a run that reached max as **not steady**; runs without it say
// nothing.
func TestReportUntilSteady(t *testing.T) {
	in := &Input{Plan: &plan.Plan{Compare: &plan.Compare{Baseline: "a", Candidate: "b"}}, State: &state.State{Runs: []state.RunRecord{
		{Run: "a", RunID: "x-a-1", UntilSteady: "WA held for 5 rounds of 1m0s (rounds 4–8, WA 1.40, 1.41, 1.40, 1.42, 1.41): flat: +0.9%"},
		{Run: "b", RunID: "x-b-1", UntilSteady: "not steady by the end (until_steady max 12h0m0s): the last 5 rounds' WA ...: still rising: +6.1%"},
		{Run: "c", RunID: "x-c-1"},
	}}}
	var b strings.Builder
	in.reportVerdict(&b, nil)
	r := b.String()
	require.Contains(t, r, "- x-a-1 (until_steady): WA held for 5 rounds of 1m0s")
	require.Contains(t, r, "- x-b-1 (until_steady): **not steady** by the end (until_steady max 12h0m0s)")
	require.NotContains(t, r, "x-c-1")
}
