package compare

// checkSteady holds each run's WA to the steady-state rule: a first
// steady window, and no drift over the compared rounds (the trend's line
// names which rule failed and by how much).
func checkSteady(j *judgement) {
	for i, role := range roles {
		tr := j.r.Trend[i]
		switch {
		case j.r.SteadyAt[i] == 0:
			j.add(role+" steady", Fail, "WA never reached steady state (%s); compared rounds %s", j.o.Steady, tr)
		case !tr.Held():
			j.add(role+" steady", Fail, "WA %s; a first steady window from %s %d (%s)", tr, j.unit, j.r.SteadyAt[i], j.o.Steady)
		default:
			j.add(role+" steady", Pass, "steady from %s %d (%s); WA %s", j.unit, j.r.SteadyAt[i], j.o.Steady, tr)
		}
	}
}

// checkEqualWindows: with the steady selection both runs are compared over
// the same rounds (the same count at the same round numbers from their
// reset); never a longer window on one side.
func checkEqualWindows(j *judgement) {
	if j.o.Select != SelectSteady {
		return
	}
	a, b := j.r.Last[0], j.r.Last[1]
	if len(a) == 0 || len(b) == 0 {
		return
	}
	same := len(a) == len(b)
	for k := 0; same && k < len(a); k++ {
		same = a[k].Hour == b[k].Hour
	}
	if !same {
		j.add("equal windows", Fail, "baseline %ss %d–%d (%d), candidate %ss %d–%d (%d): not the same rounds",
			j.unit, a[0].Hour, a[len(a)-1].Hour, len(a), j.unit, b[0].Hour, b[len(b)-1].Hour, len(b))
		return
	}
	j.add("equal windows", Pass, "%ss %d–%d in both runs (%d each), counted from each run's start", j.unit, a[0].Hour, a[len(a)-1].Hour, len(a))
}

// checkThroughputSteady reports each run's throughput steady state. A run
// whose throughput never settled leaves the WA verdict standing, but the
// performance changes get no interval: their rounds' spread is a trend,
// not noise (noSteadyThroughput).
func checkThroughputSteady(j *judgement) {
	for i, role := range roles {
		ts := j.r.ThroughputSteady[i]
		switch {
		case !ts.Applies:
		case ts.From > 0:
			tr := j.r.tpsTrend(i, j.o.Steady.Drift)
			if !tr.Held() {
				j.add(role+" TPS steady", Warn, "transactions per %s %s: the performance changes have no interval", j.unit, tr)
				continue
			}
			j.add(role+" TPS steady", Pass, "transactions per %s steady from %s %d (the criterion WA's steady state uses); %s", j.unit, j.unit, ts.From, tr)
		default:
			j.add(role+" TPS steady", Warn, "transactions per %s never steady from WA's steady state on (%s): the performance changes have no interval", j.unit, j.o.Steady)
		}
	}
}

func checkComplete(j *judgement) {
	for i, role := range roles {
		if m := j.r.Missing[i]; len(m) > 0 {
			j.add(role+" complete", Fail, "%d of %d %ss without NAND/host data (%s)", len(m), len(j.r.Tables[i]), j.unit, hourList(m))
		} else {
			j.add(role+" complete", Pass, "every %s has NAND and host data", j.unit)
		}
	}
}

// checkAnswers fails a comparison any of whose answers came with a
// warning (it is listed only then: complete answers are the rule).
func checkAnswers(j *judgement) {
	if w := j.r.Warnings; len(w) > 0 {
		j.add("complete answers", Fail, "the store warned in %d answer(s), e.g. a partial response: %s", len(w), w[0])
	}
}
