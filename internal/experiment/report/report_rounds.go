package report

import (
	"fmt"
	"strings"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment/state"
)

// RoundsThroughput is the verdict's throughput over the compared rounds,
// which the compare step records for the report's headline; nil when either run has no compared round with a
// throughput figure.
func RoundsThroughput(res *compare.Result) *state.RoundsThroughput {
	b, nb := res.RoundsTPS(0)
	c, nc := res.RoundsTPS(1)
	if b == nil || c == nil || len(res.Perf[0]) == 0 || len(res.Perf[1]) == 0 {
		return nil
	}
	rt := &state.RoundsThroughput{Baseline: *b, Candidate: *c, Change: res.Verdict.Throughput, RoundSeconds: res.Round.Seconds(),
		WithFigure: [2]int{nb, nc}}
	for i := range 2 {
		rt.FirstCompared[i], rt.LastCompared[i] = res.Perf[i][0].Hour, res.Perf[i][len(res.Perf[i])-1].Hour
		rt.Compared[i] = len(res.Facts[i].Txn)
	}
	return rt
}

// reportRoundsThroughput writes the headline throughput: the verdict's,
// over the compared rounds, so the page has one throughput change.
func (in *Input) reportRoundsThroughput(b *strings.Builder) {
	cr := in.State.Compare
	if cr == nil || cr.Rounds == nil {
		return
	}
	r := cr.Rounds
	change := r.Candidate/r.Baseline - 1
	if r.Change.OK {
		change = r.Change.Est // the same figure, the verdict's digits
	}
	fmt.Fprintf(b, "- Throughput over the compared rounds (the verdict's figure: rounds %d–%d of the baseline, %d–%d of the candidate, %gs each%s): %.1f → %.1f TPS, **%+.1f%%**",
		r.FirstCompared[0], r.LastCompared[0], r.FirstCompared[1], r.LastCompared[1], r.RoundSeconds, withFigure(r), r.Baseline, r.Candidate, 100*change)
	if r.Change.OK {
		fmt.Fprintf(b, " [%+.1f, %+.1f]", 100*r.Change.Lo, 100*r.Change.Hi)
		if !r.Change.Significant() {
			b.WriteString(" not significant")
		}
	}
	b.WriteString(".\n")
}

// withFigure says how many rounds the figures are over when a compared
// round had no throughput figure (a partial round, or one loadgen did not
// drive from end to end), "" when every round had one. Records written
// before the counts were kept have none and say nothing.
func withFigure(r *state.RoundsThroughput) string {
	if r.Compared == [2]int{} || r.WithFigure == r.Compared {
		return ""
	}
	return fmt.Sprintf("; over the rounds with a figure: %d of %d baseline, %d of %d candidate", r.WithFigure[0], r.Compared[0], r.WithFigure[1], r.Compared[1])
}
