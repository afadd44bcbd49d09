package compare

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Trend is the least-squares line of a window's values against the round
// index: its drift across the window (slope × (n−1)) as a share of the
// window's mean, the drift's 95 % interval (Student's t on the slope's
// standard error, n−2 degrees of freedom; absent below 3 values), and the
// round numbers the window spans.
type Trend struct {
	Drift  float64 `json:"drift"`
	Lo     float64 `json:"drift_lo"`
	Hi     float64 `json:"drift_hi"`
	HasCI  bool    `json:"drift_has_interval"`
	Limit  float64 `json:"drift_limit"`
	First  int     `json:"first_round"`
	Last   int     `json:"last_round"`
	Rounds int     `json:"rounds"`
	// Fitted is false when no line could be fitted: fewer than 2 values,
	// one not finite, or a mean that is not positive.
	Fitted bool `json:"fitted"`
}

// Held reports whether the window has no trend beyond its limit.
func (t Trend) Held() bool { return t.Fitted && math.Abs(t.Drift) <= t.Limit }

// trendOf fits ys (one value per round, rounds first..last) and judges it
// against limit; Fitted is false when no line can be fitted.
func trendOf(ys []float64, first, last int, limit float64) Trend {
	t := Trend{Limit: limit, First: first, Last: last, Rounds: len(ys)}
	n := len(ys)
	if n < 2 {
		return t
	}
	var mean float64
	for _, y := range ys {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return t
		}
		mean += y
	}
	mean /= float64(n)
	if !(mean > 0) {
		return t
	}
	b := slope(ys)
	span := float64(n - 1)
	t.Drift, t.Fitted = b*span/mean, true
	if n >= 3 {
		xm := span / 2
		var ssr, sxx float64
		for i, y := range ys {
			dx := float64(i) - xm
			r := y - (mean + b*dx)
			ssr += r * r
			sxx += dx * dx
		}
		se := math.Sqrt(ssr/float64(n-2)/sxx) * span / mean
		q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Quantile(0.975)
		t.Lo, t.Hi, t.HasCI = t.Drift-q*se, t.Drift+q*se, true
	}
	return t
}

// String says what the line shows: "still rising: +12.0% over rounds
// 2–9 (linear fit; limit 3% of the window's mean)" when the drift is
// beyond the limit, "flat: +0.8% [-1.9, +3.5] over rounds 5–12 ..." when
// not.
func (t Trend) String() string {
	if !t.Fitted {
		return fmt.Sprintf("no line: %d round(s) with a figure over rounds %d–%d", t.Rounds, t.First, t.Last)
	}
	word := "flat"
	switch {
	case t.Held():
	case t.Drift > 0:
		word = "still rising"
	default:
		word = "still falling"
	}
	ci := ""
	if t.HasCI {
		ci = fmt.Sprintf(" [%+.1f, %+.1f]", 100*t.Lo, 100*t.Hi)
	}
	return fmt.Sprintf("%s: %+.1f%%%s over rounds %d–%d (linear fit; limit %g%% of the window's mean)",
		word, 100*t.Drift, ci, t.First, t.Last, 100*t.Limit)
}

// Holds reports whether ys, one window of rounds numbered from first, is
// steady under s and shows no trend beyond s.Drift: the rule a run's
// until_steady ends on (internal/experiment), the same code as the
// verdict's.
func (s Steady) Holds(ys []float64, first int) (bool, Trend) {
	t := trendOf(ys, first, first+len(ys)-1, s.Drift)
	return s.WindowSteady(ys) && t.Held(), t
}
