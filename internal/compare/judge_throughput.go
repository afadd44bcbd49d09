package compare

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

// OneRunEach is why a performance change from one run per arm has no
// interval: the spread of rounds within each run measures the machine's
// load during it, not the setting; intervals come from repetitions.
const OneRunEach = "one run each: give the plan `cycles: 3` for an interval"

// withoutInterval keeps iv's estimate and drops its interval for why.
func withoutInterval(iv Interval, why string) Interval {
	if why == "" || !iv.OK {
		return iv
	}
	return Interval{Est: iv.Est, Why: why}
}
