package experiment

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/state"
)

// TestReportUnderNotValid: the report gives no WA reduction when walab
// compare did not find the comparison VALID, and compare's text (which
// carries labels from the store) cannot close its code block and inject
// Markdown; the plan's backticks cannot either.
func TestReportUnderNotValid(t *testing.T) {
	yml := "name: rep\nprometheus: http://127.0.0.1:1\ndevice: nvme0\nruns:\n" +
		"  - {name: base, command: 'echo `date`'}\n  - {name: cand, command: 'true'}\ncompare: {baseline: base, candidate: cand}\n"
	e, err := create([]byte(yml), filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	wa := func(x float64) *float64 { return &x }
	e.state.Runs = []state.RunRecord{{Run: "base", RunID: "rep-base-r1", Rep: 1, WA: wa(2.5)}, {Run: "cand", RunID: "rep-cand-r1", Rep: 1, WA: wa(2.2)}}
	invalid := false
	e.state.Compare = &state.CompareRecord{Baseline: "base", Candidate: "cand", Valid: &invalid,
		Text:  "NOT VALID: same drive: serial ```\n# Injected heading\n```` x\n",
		Drift: []string{"scenario: `a` → b"}}
	r := e.Report()
	require.Contains(t, r, "2.500 → 2.200; no reduction is given: walab compare did not find the comparison VALID")
	require.NotContains(t, r, "-12.0%")
	require.Contains(t, r, "`````\nNOT VALID: same drive: serial ```\n# Injected heading\n```` x\n`````\n")
	require.Contains(t, r, "- ``scenario: `a` → b``\n")
	require.Contains(t, r, "```yaml\nname: rep\n")

	valid := true
	e.state.Compare.Valid = &valid
	require.Contains(t, e.Report(), "2.500 → 2.200, **-12.0%**")
}
