package compare

import "fmt"

// Selection is what selectWindows chose from both runs' tables: each run's
// compared rounds, where each reached steady state (round number, 0:
// never), and the trend of each window's WA.
type Selection struct {
	Rounds   [2][]Hour
	SteadyAt [2]int
	Trend    [2]Trend
}

// selectWindows chooses the compared rounds of both runs. With
// SelectSteady both runs are compared over the same rounds: the same
// number, at the same round numbers from their identical reset (so at
// matched fill and matched bytes written since it), from the later of the
// two steady starts on, the last o.LastHours complete rounds both runs
// have. When that window still drifts in either run, the latest shorter
// common window (down to the steady window's length) in which neither
// drifts is taken; when none is, the longest stands and the steady check
// fails on its trend. With SelectLastNonZero each run keeps seed 000's
// rule (its own last o.LastHours rounds with host writes).
func (o Options) selectWindows(tables [2][]Hour) (Selection, error) {
	var sel Selection
	start := 0
	for i, t := range tables {
		var from int
		sel.SteadyAt[i], from = o.steadyFrom(t)
		if o.Select != SelectSteady {
			sel.Rounds[i] = LastNonZero(t[from:], o.LastHours)
		}
		start = max(start, sel.SteadyAt[i])
	}
	if o.Select == SelectSteady {
		common := commonRounds(tables, start)
		if len(common) == 0 {
			return sel, fmt.Errorf("no round with host writes in both runs at the same round number from round %d on", max(start, 1))
		}
		sel.Rounds = o.latestHeld(tables, common)
	}
	for i, rs := range sel.Rounds {
		if len(rs) == 0 {
			return sel, fmt.Errorf("%s: no round with host writes on %s", roles[i], o.subject())
		}
		sel.Trend[i] = o.waTrend(rs)
	}
	return sel, nil
}

// commonRounds are the round numbers, from start on, that are complete
// with host writes in both tables, in order.
func commonRounds(tables [2][]Hour, start int) []int {
	other := map[int]bool{}
	for _, h := range tables[1] {
		if h.NonZero() {
			other[h.Hour] = true
		}
	}
	var out []int
	for _, h := range tables[0] {
		if h.NonZero() && h.Hour >= start && other[h.Hour] {
			out = append(out, h.Hour)
		}
	}
	return out
}

// latestHeld returns both runs' rounds of the last m common rounds, for
// the largest m (at most o.LastHours, at least the steady window) at which
// neither run's WA drifts; the largest m when no such m is.
func (o Options) latestHeld(tables [2][]Hour, common []int) [2][]Hour {
	n := min(len(common), o.LastHours)
	for m := n; m >= o.Steady.Window; m-- {
		w := roundsAt(tables, common[len(common)-m:])
		if o.waTrend(w[0]).Held() && o.waTrend(w[1]).Held() {
			return w
		}
	}
	return roundsAt(tables, common[len(common)-n:])
}

// roundsAt picks the rounds numbered nums from both tables.
func roundsAt(tables [2][]Hour, nums []int) [2][]Hour {
	var out [2][]Hour
	want := map[int]bool{}
	for _, n := range nums {
		want[n] = true
	}
	for i, t := range tables {
		for _, h := range t {
			if want[h.Hour] {
				out[i] = append(out[i], h)
			}
		}
	}
	return out
}

// waTrend is the trend of the rounds' WA under o's drift limit.
func (o Options) waTrend(rs []Hour) Trend {
	ys := make([]float64, len(rs))
	for i, h := range rs {
		ys[i] = h.WA()
	}
	return trendOf(ys, rs[0].Hour, rs[len(rs)-1].Hour, o.Steady.Drift)
}

// steadyFrom is where table reached steady state under o.Steady (the
// round number, 0: never) and the index the compared rounds are taken
// from: that round's under SelectSteady, else the first.
func (o Options) steadyFrom(table []Hour) (steadyAt, from int) {
	k := o.Steady.From(table)
	if k < 0 {
		return 0, 0
	}
	if o.Select == SelectSteady {
		from = k
	}
	return table[k].Hour, from
}
