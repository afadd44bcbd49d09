package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWriteJSONNonFinite: walab compare --json failed on an infinite WA
// (encoding/json has no number for it) after the verdict was printed.
// Such figures are null in the JSON, and named with their value.
func TestWriteJSONNonFinite(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	turns := 2.0
	r := &Result{Device: "nvme0", Round: time.Hour, WA: [2]float64{inf, 2.2}, Reduction: nan,
		Verdict: Verdict{WA: Interval{Est: nan, Lo: math.Inf(-1), Hi: 0.1, Why: "no interval"}},
		Facts:   [2]RunFacts{{DriveTurns: &inf, Txn: []*float64{&turns, &nan}}, {DriveTurns: &turns}}}
	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))
	var got struct {
		Reduction *float64 `json:"wa_reduction"`
		NonFinite []string `json:"non_finite"`
		Verdict   struct {
			WA struct{ Est, Lo, Hi *float64 } `json:"wa_change"`
		} `json:"verdict"`
		Baseline struct {
			WA    *float64 `json:"wa"`
			Facts struct {
				DriveTurns *float64
				Txn        []*float64
			} `json:"facts"`
		} `json:"baseline"`
		Candidate struct {
			WA    *float64                      `json:"wa"`
			Facts struct{ DriveTurns *float64 } `json:"facts"`
		} `json:"candidate"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got), b.String())
	require.Nil(t, got.Reduction)
	require.Nil(t, got.Baseline.WA)
	require.Equal(t, 2.2, *got.Candidate.WA)
	require.Nil(t, got.Baseline.Facts.DriveTurns)
	require.Equal(t, 2.0, *got.Candidate.Facts.DriveTurns)
	require.Equal(t, []*float64{&turns, nil}, got.Baseline.Facts.Txn)
	require.Nil(t, got.Verdict.WA.Est)
	require.Nil(t, got.Verdict.WA.Lo)
	require.Equal(t, 0.1, *got.Verdict.WA.Hi)
	require.ElementsMatch(t, []string{"wa_reduction: NaN", "verdict.wa_change.Est: NaN", "verdict.wa_change.Lo: -Inf",
		"baseline.wa: +Inf", "baseline.facts.DriveTurns: +Inf", "baseline.facts.Txn[1]: NaN"}, got.NonFinite)
	require.True(t, math.IsInf(*r.Facts[0].DriveTurns, 1), "the result itself is not changed")
	require.True(t, math.IsNaN(*r.Facts[0].Txn[1]))
}
