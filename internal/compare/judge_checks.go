package compare

import "fmt"

// judge makes the verdict: the comparability checks in their order,
// then the changes of WA and of the performance figures with their
// intervals (none for performance from one run each).
func judge(r *Result, o Options) Verdict {
	j := &judgement{r: r, o: o, unit: roundName(r.Round), b: r.Facts[0], c: r.Facts[1]}
	for _, check := range comparabilityChecks {
		check(j)
	}
	v := j.v
	v.Valid = len(v.Reasons) == 0
	v.WA = o.Interval.RelChange(WAPairs(r.Last[0]), WAPairs(r.Last[1]))
	v.Throughput = o.Interval.RelChange(countPairs(j.b.Txn), countPairs(j.c.Txn))
	v.TpmC = o.Interval.RelChange(countPairs(j.b.NewOrder), countPairs(j.c.NewOrder))
	v.P95 = o.Interval.RelChange(countPairs(j.b.P95Rounds), countPairs(j.c.P95Rounds))
	v.P99 = o.Interval.RelChange(countPairs(j.b.P99Rounds), countPairs(j.c.P99Rounds))
	v.ThroughputRounds, v.P99Rounds = v.Throughput, v.P99
	why := r.noSteadyThroughput(o.Steady.Drift)
	if why == "" {
		why = OneRunEach
		if o.Reps >= 2 {
			why = fmt.Sprintf("this pair of runs only: the interval between the %d repetitions is the report's", o.Reps)
		}
	}
	for _, iv := range []*Interval{&v.Throughput, &v.TpmC, &v.P95, &v.P99} {
		*iv = withoutInterval(*iv, why)
	}
	return v
}

// comparabilityChecks run in this order; the verdict lists their results
// in it.
var comparabilityChecks = []func(*judgement){
	checkSteady,
	checkEqualWindows,
	checkThroughputSteady,
	checkComplete,
	checkSameDrive,
	checkWASource,
	checkFillAtStart,
	checkWornIn,
	checkHostRate,
	checkOfferedLoad,
	checkMDSync,
	checkMySQLConfig,
	checkPlacement,
	checkAnswers,
}

// countPairs are per-round figures as Pairs over 1, leaving out the
// rounds without one.
func countPairs(xs []*float64) []Pair {
	out := make([]Pair, 0, len(xs))
	for _, x := range xs {
		if x != nil {
			out = append(out, Pair{Num: *x, Den: 1})
		}
	}
	return out
}
