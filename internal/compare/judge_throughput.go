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
			j.add(role+" TPS steady", Pass, "transactions per %s steady from %s %d (the criterion WA's steady state uses)", j.unit, j.unit, ts.From)
		default:
			j.add(role+" TPS steady", Warn, "transactions per %s never steady from WA's steady state on (%s): the performance changes have no interval", j.unit, j.o.Steady)
		}
	}
}

// noSteadyThroughput names the runs whose throughput never settled, "" when
// every run's did or the rule does not apply.
func (r *Result) noSteadyThroughput() string {
	var bad []string
	for i, ts := range r.ThroughputSteady {
		if ts.Applies && ts.From == 0 {
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
