package compare

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/prometheus/common/model"
)

// A round's throughput comes from exactly the round's span: the counter's
// value at each bound of a round is interpolated between the raw samples
// either side of it, so adjacent rounds split the counter's increase
// between them with nothing lost, nothing counted twice and nothing
// extrapolated. increase(x[round]) at the round's end, used before, scales
// the samples inside the window up to the window's length; with 1 s scrapes
// and 5 s rounds that moved a round's figure by up to a fifth, one way or
// the other, and more at a run's edges.

// bound is one round's start and end.
type bound struct{ from, to time.Time }

// roundBounds are the spans of the compared rounds (each ends at its At).
func roundBounds(compared []Hour, round time.Duration) []bound {
	out := make([]bound, len(compared))
	for i, h := range compared {
		out[i] = bound{h.At.Add(-round), h.At}
	}
	return out
}

// roundIncreases reads the raw samples of the counters sel selects around
// the rounds and returns, per value of the label by ("" for one total),
// each round's increase. A round is nil when a series selected has
// samples on only one side of one of its bounds, or a gap of more than
// maxGap around a bound (a partial round is not counted), and when no
// series spans it (the counters were not there: absent, not 0); a series
// with no sample within the round's span and none across it adds nothing
// to the others'.
func (s Source) roundIncreases(ctx context.Context, sel, by string, bs []bound) (map[string][]*float64, error) {
	if len(bs) == 0 {
		return nil, nil
	}
	round := bs[0].to.Sub(bs[0].from)
	end := bs[len(bs)-1].to.Add(round)
	span := end.Sub(bs[0].from.Add(-round))
	q := fmt.Sprintf("%s[%s]", sel, model.Duration(span))
	res, _, _, err := s.API.Query(ctx, q, end)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q, err)
	}
	m, _ := res.(model.Matrix)
	if len(m) == 0 {
		return nil, nil
	}
	out := map[string][]*float64{}
	partial, covered := make([]bool, len(bs)), make([]bool, len(bs))
	for _, ss := range m {
		key := string(ss.Metric[model.LabelName(by)])
		if out[key] == nil {
			out[key] = make([]*float64, len(bs))
		}
		c := newCumulative(ss.Values)
		for i, b := range bs {
			inc, ok := c.increase(b.from, b.to, maxGap(round, c))
			if !ok {
				partial[i] = true
				continue
			}
			covered[i] = covered[i] || c.spans(b.from, b.to)
			if out[key][i] == nil {
				out[key][i] = new(float64)
			}
			*out[key][i] += inc
		}
	}
	for _, xs := range out {
		for i := range xs {
			if partial[i] || !covered[i] {
				xs[i] = nil
			}
		}
	}
	return out, nil
}

// maxGap is the widest gap between samples a bound may fall in: a tenth
// of a round, or two and a half times the series' usual scrape spacing
// (one missed scrape), whichever is more.
func maxGap(round time.Duration, c cumulative) time.Duration {
	return max(round/10, time.Duration(2.5*float64(c.spacing())))
}

// cumulative is a counter's samples with resets undone: each value is the
// sum of all increases since the first sample.
type cumulative struct {
	t []time.Time
	v []float64
}

func newCumulative(ps []model.SamplePair) cumulative {
	var c cumulative
	offset, prev := 0.0, math.Inf(-1)
	for _, p := range ps {
		x := float64(p.Value)
		if math.IsNaN(x) {
			continue
		}
		if x < prev {
			offset += prev // a reset: the counter restarted from 0
		}
		prev = x
		c.t = append(c.t, p.Timestamp.Time())
		c.v = append(c.v, x+offset)
	}
	return c
}

// spacing is the median time between samples.
func (c cumulative) spacing() time.Duration {
	if len(c.t) < 2 {
		return 0
	}
	d := make([]time.Duration, len(c.t)-1)
	for i := range d {
		d[i] = c.t[i+1].Sub(c.t[i])
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// at is the counter's value at t, interpolated between the samples either
// side; ok is false when t is outside the samples or in a gap wider than gap.
func (c cumulative) at(t time.Time, gap time.Duration) (float64, bool) {
	i := sort.Search(len(c.t), func(i int) bool { return !c.t[i].Before(t) })
	switch {
	case i < len(c.t) && c.t[i].Equal(t):
		return c.v[i], true
	case i == 0 || i == len(c.t):
		return 0, false
	}
	t0, t1 := c.t[i-1], c.t[i]
	if t1.Sub(t0) > gap {
		return 0, false
	}
	f := float64(t.Sub(t0)) / float64(t1.Sub(t0))
	return c.v[i-1] + f*(c.v[i]-c.v[i-1]), true
}

// spans reports whether the samples reach from at or before from to at or
// after to.
func (c cumulative) spans(from, to time.Time) bool {
	return len(c.t) > 0 && !c.t[0].After(from) && !c.t[len(c.t)-1].Before(to)
}

// increase is the counter's increase over [from, to]: 0 when the series
// has no sample in or across the span (it did not exist then), false when
// it covers only part of it.
func (c cumulative) increase(from, to time.Time, gap time.Duration) (float64, bool) {
	if len(c.t) == 0 || c.t[len(c.t)-1].Before(from) || c.t[0].After(to) {
		return 0, true
	}
	a, oka := c.at(from, gap)
	b, okb := c.at(to, gap)
	if !oka || !okb {
		return 0, false
	}
	return b - a, true
}

// runSpan is the run's length as a PromQL range, at least a minute.
func runSpan(run Run) string {
	return model.Duration(max(run.End.Sub(run.Start), time.Minute)).String()
}
