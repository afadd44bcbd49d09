package report

import (
	"fmt"
	"strings"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment/state"
)

// repsThroughput is the throughput change between the repetitions of the
// compared runs: each repetition's whole-run TPS (loadgen's summary) is one
// value, and the change of the two means gets the verdict's own interval
// arithmetic with batches of one repetition (compare.BatchMeans: Welch's t
// on the log of the ratio). Its spread is that of whole runs, so it holds
// what moves a run as a whole: a load change from one run to the next, the
// state a restart leaves. The verdict's interval, from the spread of the
// rounds within each run, cannot see that (docs/compare.md, "Error rates on
// the whole pipeline"). OK is false, with Why, below 2 repetitions a side.
func repsThroughput(base, cand *Group) compare.Interval {
	return repsChange(base, cand, "a throughput", func(r state.RunRecord) *float64 { return r.TPS })
}

// repsChange is the change of one whole-run figure between the
// repetitions, as repsThroughput's.
func repsChange(base, cand *Group, what string, fig func(state.RunRecord) *float64) compare.Interval {
	pb, pc := repPairs(base.Runs, fig), repPairs(cand.Runs, fig)
	if len(pb) < 2 || len(pc) < 2 {
		return compare.Interval{Why: fmt.Sprintf("%d and %d repetitions with %s: fewer than 2 a side", len(pb), len(pc), what)}
	}
	return compare.BatchMeans{Batch: 1}.RelChange(pb, pc)
}

// repPairs is one pair per repetition with the figure: its value over 1.
func repPairs(recs []state.RunRecord, fig func(state.RunRecord) *float64) []compare.Pair {
	var out []compare.Pair
	for _, r := range recs {
		if v := fig(r); v != nil {
			out = append(out, compare.Pair{Num: *v, Den: 1})
		}
	}
	return out
}

// reportWholeRunThroughput writes the whole-run throughput line: the
// means over the repetitions, with the interval between repetitions when
// both runs have two or more, and otherwise a plain statement that no
// between-run interval exists.
func reportWholeRunThroughput(b *strings.Builder, ga, gb *Group) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if ga.TPS == nil || gb.TPS == nil || !(ga.TPS.Mean > 0) {
		w("- Throughput: not known (no loadgen result for a run).\n")
		return
	}
	iv := repsThroughput(ga, gb)
	if iv.OK {
		w("- Throughput over whole runs (loadgen's summary, mean of %d and %d repetitions): %.1f → %.1f TPS, %+.1f%% [%+.1f, %+.1f] between repetitions",
			ga.TPS.N, gb.TPS.N, ga.TPS.Mean, gb.TPS.Mean, 100*iv.Est, 100*iv.Lo, 100*iv.Hi)
		if !iv.Significant() {
			w(" not significant")
		}
	} else {
		w("- Throughput over whole runs (loadgen's summary): %.1f → %.1f TPS, %+.1f%%", ga.TPS.Mean, gb.TPS.Mean, 100*(gb.TPS.Mean/ga.TPS.Mean-1))
	}
	if ga.TpmC != nil && gb.TpmC != nil && ga.TpmC.Mean > 0 {
		w("; tpmC %.0f → %.0f, %+.1f%%", ga.TpmC.Mean, gb.TpmC.Mean, 100*(gb.TpmC.Mean/ga.TpmC.Mean-1))
		if tv := repsChange(ga, gb, "a tpmC", func(r state.RunRecord) *float64 { return r.TpmC }); tv.OK {
			w(" [%+.1f, %+.1f] between repetitions", 100*tv.Lo, 100*tv.Hi)
		}
	}
	w(".\n")
	if iv.OK {
		w("- The interval between repetitions comes from the spread of whole runs: unlike the verdict's (the spread of rounds within each run), it holds a load change from one run to the next.\n")
		return
	}
	w("- No interval between runs (%s): %s (the runs alternate); the spread of rounds within one run measures the machine's load during it, not the setting, so the verdict gives throughput and tpmC none either.\n", iv.Why, compare.OneRunEach)
}
