package compare

import (
	"encoding/json"
	"io"
)

// WriteJSON writes every figure and check of the comparison.
func (r *Result) WriteJSON(w io.Writer) error {
	type run struct {
		Run
		SteadyAt int      `json:"steady_at"` // 0: never
		Table    []Hour   `json:"table"`
		Compared []int    `json:"compared"`
		WA       *float64 `json:"wa"` // null: not a finite number (non_finite)
		Facts    RunFacts `json:"facts"`

		ThroughputSteady ThroughputSteady `json:"throughput_steady"`
		// PerfCompared are the rounds the performance figures come from.
		PerfCompared []int `json:"performance_compared"`
	}
	out := struct {
		Device       string   `json:"device"`
		Array        string   `json:"array,omitempty"`
		RoundSeconds float64  `json:"round_seconds"`
		Verdict      Verdict  `json:"verdict"`
		Reduction    *float64 `json:"wa_reduction"`
		Baseline     run      `json:"baseline"`
		Candidate    run      `json:"candidate"`
		// NonFinite names each figure given as null because it is not a
		// finite number, with its value ("baseline.wa: +Inf").
		NonFinite []string `json:"non_finite,omitempty"`
	}{Device: r.Device, Array: r.Array, RoundSeconds: r.Round.Seconds(), Verdict: r.Verdict}
	out.Reduction = nullable(r.Reduction, "wa_reduction", &out.NonFinite)
	for _, iv := range []struct {
		name string
		iv   Interval
	}{{"wa_change", r.Verdict.WA}, {"throughput_change", r.Verdict.Throughput}, {"tpmc_change", r.Verdict.TpmC}, {"p95_change", r.Verdict.P95}, {"p99_change", r.Verdict.P99}} {
		for _, b := range []struct {
			name string
			x    float64
		}{{"Est", iv.iv.Est}, {"Lo", iv.iv.Lo}, {"Hi", iv.iv.Hi}} {
			nullable(b.x, "verdict."+iv.name+"."+b.name, &out.NonFinite) // Interval.MarshalJSON gives it as null
		}
	}
	for i, dst := range []*run{&out.Baseline, &out.Candidate} {
		*dst = run{Run: r.Runs[i], SteadyAt: r.SteadyAt[i], ThroughputSteady: r.ThroughputSteady[i], Table: r.Tables[i],
			WA: nullable(r.WA[i], roles[i]+".wa", &out.NonFinite), Facts: finiteFacts(r.Facts[i], roles[i]+".facts", &out.NonFinite)}
		for _, h := range r.Last[i] {
			dst.Compared = append(dst.Compared, h.Hour)
		}
		for _, h := range r.Perf[i] {
			dst.PerfCompared = append(dst.PerfCompared, h.Hour)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
