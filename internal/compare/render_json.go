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
		WA       float64  `json:"wa"`
		Facts    RunFacts `json:"facts"`

		ThroughputSteady ThroughputSteady `json:"throughput_steady"`
		// PerfCompared are the rounds the performance figures come from.
		PerfCompared []int `json:"performance_compared"`
	}
	out := struct {
		Device       string  `json:"device"`
		Array        string  `json:"array,omitempty"`
		RoundSeconds float64 `json:"round_seconds"`
		Verdict      Verdict `json:"verdict"`
		Reduction    float64 `json:"wa_reduction"`
		Baseline     run     `json:"baseline"`
		Candidate    run     `json:"candidate"`
	}{Device: r.Device, Array: r.Array, RoundSeconds: r.Round.Seconds(), Verdict: r.Verdict, Reduction: r.Reduction}
	for i, dst := range []*run{&out.Baseline, &out.Candidate} {
		*dst = run{Run: r.Runs[i], SteadyAt: r.SteadyAt[i], ThroughputSteady: r.ThroughputSteady[i], Table: r.Tables[i], WA: r.WA[i], Facts: r.Facts[i]}
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
