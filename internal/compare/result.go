package compare

import (
	"fmt"
	"time"
)

// Result is the comparison of two runs on one device (or array): what
// Compare read, selected and judged, and what the render_ files print.
type Result struct {
	Device   string
	Array    string `json:",omitempty"`
	Round    time.Duration
	Runs     [2]Run    // baseline, candidate
	Tables   [2][]Hour // per-round tables
	Last     [2][]Hour // the compared rounds of each run: WA's
	Missing  [2][]Hour // rounds of each run without trustworthy figures
	SteadyAt [2]int    // round number steady state was first reached; 0: never
	// Trend is the least-squares line of each run's WA over its compared
	// rounds: the drift rule's figures (judge_trend.go).
	Trend     [2]Trend
	Facts     [2]RunFacts
	WA        [2]float64
	Reduction float64
	Verdict   Verdict
	Warnings  []string `json:",omitempty"` // the store's warnings (partial answers): NOT VALID

	// ThroughputSteady is where each run's throughput settled (SelectSteady).
	ThroughputSteady [2]ThroughputSteady
	// Perf are the rounds the performance figures (throughput, tpmC,
	// latency) come from: the compared rounds from the first steady
	// throughput window on (SelectSteady), else Last. A suffix of Last.
	Perf [2][]Hour

	steadyName string
}

// roles name the two runs, in Result's order.
var roles = [2]string{"baseline", "candidate"}

// newResult is an empty Result of o's subject, naming o's steady-state
// criterion.
func newResult(o Options) *Result {
	res := &Result{Device: o.Device, Array: o.Array, Round: o.Round, steadyName: "SNIA"}
	if o.Steady.Method != "" {
		res.steadyName = "fio " + o.Steady.Method
	}
	return res
}

// Incomplete reports whether either run has missing rounds.
func (r *Result) Incomplete() bool { return len(r.Missing[0])+len(r.Missing[1]) > 0 }

// RoundsTPS is run i's mean committed transactions per second over the
// compared rounds that have a figure: the figure the verdict's throughput
// change is about, which leaves out the same rounds (a partial round, or one
// loadgen did not drive from end to end, has none). nil when no round has
// one; n is the number of rounds with a figure.
func (r *Result) RoundsTPS(i int) (tps *float64, n int) {
	return meanPerSecond(r.Facts[i].Txn, r.Round.Seconds())
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
