package compare

import (
	"fmt"
)

// ThroughputSteady is where a run's throughput (committed transactions per
// round) reached steady state under the same criterion as WA.
type ThroughputSteady struct {
	// Applies is false when the rounds carry no throughput figure (no
	// loadgen and no server COMMIT counter, or a last-nonzero selection):
	// the rule then selects nothing and says nothing.
	Applies bool `json:"applies"`
	// From is the round number the first steady window starts at; 0:
	// throughput never steady in the rounds WA's steady state left.
	From int `json:"from"`
}

// throughputFrom returns the index in txn (one figure per round, nil for a
// round without one) of the first round of the first window of st.Window
// rounds, all with a figure, that meets st; -1 when no window does. ok is
// false when no round has a figure.
func throughputFrom(st Steady, txn []*float64) (k int, ok bool) {
	if !anySet(txn) {
		return -1, false
	}
	for i := 0; i+st.Window <= len(txn); i++ {
		ys := make([]float64, 0, st.Window)
		for _, x := range txn[i : i+st.Window] {
			if x == nil {
				break
			}
			ys = append(ys, *x)
		}
		if len(ys) == st.Window && st.WindowSteady(ys) {
			return i, true
		}
	}
	return -1, true
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

// tpsTrend is the trend of run i's transactions per round over its
// performance rounds (those with a figure).
func (r *Result) tpsTrend(i int, limit float64) Trend {
	var ys []float64
	for _, x := range r.Facts[i].Txn {
		if x != nil {
			ys = append(ys, *x)
		}
	}
	p := r.Perf[i]
	if len(p) == 0 {
		return Trend{Limit: limit}
	}
	return trendOf(ys, p[0].Hour, p[len(p)-1].Hour, limit)
}

// OneRunEach is why a performance change from one run per arm has no
// interval: the spread of rounds within each run measures the machine's
// load during it, not the setting; intervals come from repetitions.
const OneRunEach = "one run each: give the plan `cycles: 3` for an interval"

// noSteadyThroughput names the runs whose throughput never settled or
// still drifts, "" when every run's held or the rule does not apply.
func (r *Result) noSteadyThroughput(drift float64) string {
	var bad []string
	for i, ts := range r.ThroughputSteady {
		if ts.Applies && (ts.From == 0 || !r.tpsTrend(i, drift).Held()) {
			bad = append(bad, roles[i])
		}
	}
	switch len(bad) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s throughput not steady", bad[0])
	}
	return "throughput of both runs not steady"
}

// withoutInterval keeps iv's estimate and drops its interval for why.
func withoutInterval(iv Interval, why string) Interval {
	if why == "" || !iv.OK {
		return iv
	}
	return Interval{Est: iv.Est, Why: why}
}
