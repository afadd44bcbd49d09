package report

import (
	"math"
	"sort"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// Stats summarise one figure over the repetitions of a run.
type Stats struct {
	N              int
	Mean, Min, Max float64
	// Lo, Hi: the 95 % confidence interval of the mean (Student's t over
	// the repetitions, which are independent: the database restarts
	// between them); NaN for fewer than 2 values.
	Lo, Hi float64
}

// t975 are Student's t 0.975 quantiles for 1..30 degrees of freedom.
var t975 = []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// Summarise computes Stats of the values; ok is false when there are none.
func Summarise(vals []float64) (Stats, bool) {
	if len(vals) == 0 {
		return Stats{}, false
	}
	s := Stats{N: len(vals), Min: math.Inf(1), Max: math.Inf(-1), Lo: math.NaN(), Hi: math.NaN()}
	var sum float64
	for _, v := range vals {
		sum += v
		s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
	}
	s.Mean = sum / float64(s.N)
	if s.N >= 2 {
		var ss float64
		for _, v := range vals {
			ss += (v - s.Mean) * (v - s.Mean)
		}
		sd := math.Sqrt(ss / float64(s.N-1))
		t := 1.960
		if df := s.N - 1; df <= len(t975) {
			t = t975[df-1]
		}
		h := t * sd / math.Sqrt(float64(s.N))
		s.Lo, s.Hi = s.Mean-h, s.Mean+h
	}
	return s, true
}

// Group is the repetitions of one run at one thread count.
type Group struct {
	Run      string
	Scenario string
	Threads  int
	Runs     []state.RunRecord
	TPS      *Stats
	TpmC     *Stats
	WA       *Stats
	P95Ms    *Stats
}

// Aggregate groups the counted runs by run and thread count, in plan order.
func Aggregate(p *plan.Plan, recs []state.RunRecord) []Group {
	var out []Group
	for _, r := range p.Runs {
		threads := []int{r.Threads}
		if r.Sweep != nil {
			threads = r.Sweep.Threads
		}
		for _, th := range threads {
			g := Group{Run: r.Name, Scenario: r.ScenarioLabel(), Threads: th}
			for _, rec := range recs {
				if rec.Run == r.Name && rec.Threads == th {
					g.Runs = append(g.Runs, rec)
				}
			}
			sort.Slice(g.Runs, func(i, j int) bool { return g.Runs[i].Rep < g.Runs[j].Rep })
			g.TPS = summarise(g.Runs, func(r state.RunRecord) *float64 { return r.TPS })
			g.TpmC = summarise(g.Runs, func(r state.RunRecord) *float64 { return r.TpmC })
			g.WA = summarise(g.Runs, func(r state.RunRecord) *float64 { return r.WA })
			g.P95Ms = summarise(g.Runs, func(r state.RunRecord) *float64 { return r.P95Ms })
			out = append(out, g)
		}
	}
	return out
}

func summarise(recs []state.RunRecord, get func(state.RunRecord) *float64) *Stats {
	var vals []float64
	for _, r := range recs {
		if v := get(r); v != nil {
			vals = append(vals, *v)
		}
	}
	s, ok := Summarise(vals)
	if !ok {
		return nil
	}
	return &s
}

// Peak is the thread count of a swept run with the highest mean
// throughput (seed 002: the concurrency of maximum performance); ok is
// false when no thread count has a throughput.
func Peak(groups []Group, run string) (threads int, tps Stats, ok bool) {
	for _, g := range groups {
		if g.Run != run || g.TPS == nil {
			continue
		}
		if !ok || g.TPS.Mean > tps.Mean {
			threads, tps, ok = g.Threads, *g.TPS, true
		}
	}
	return threads, tps, ok
}
