package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Steady is the steady-state criterion of SNIA's Solid State Storage
// Performance Test Specification (PTS): a measurement window of Window
// consecutive rounds is steady when its data excursion (max - min) is at
// most MaxExcursion of the window's mean and the excursion of its
// least-squares line across the window (|slope| x (Window-1)) is at most
// MaxSlope of that mean. walab applies it to the hourly (per round) WA.
//
// Method selects fio's `ss=` forms instead, over the same Window of rounds
// (fio's ss_dur): MethodFioDev is `iops:P%` (every value within Limit of
// the window's mean), MethodFioSlope is `iops_slope:P%` (the least-squares
// slope per round at most Limit of the mean), applied to WA per round.
type Steady struct {
	Window       int     // rounds; SNIA: 5
	MaxExcursion float64 // share of the mean; SNIA: 0.20
	MaxSlope     float64 // share of the mean; SNIA: 0.10
	Method       string  // "" (SNIA), MethodFioDev or MethodFioSlope
	Limit        float64 // share of the mean, for the fio methods
	// Drift is the largest drift of the compared rounds' least-squares
	// line (slope × (n−1)) as a share of their mean, whatever the method:
	// the trend a storage engineer sees in the chart (judge_trend.go,
	// judge_window.go). The first steady window is found without it;
	// Options fill DefaultDrift for 0.
	Drift float64
}

// fio's steady-state forms.
const (
	MethodFioDev   = "fio-dev"
	MethodFioSlope = "fio-slope"
)

// ParseCriterion reads --steady.criterion: "snia", or fio's forms
// "fio-dev:P%" and "fio-slope:P%" (P a percentage of the mean).
func ParseCriterion(s string) (method string, limit float64, err error) {
	if s == "" || s == "snia" {
		return "", 0, nil
	}
	m, p, ok := strings.Cut(s, ":")
	if !ok || (m != MethodFioDev && m != MethodFioSlope) || !strings.HasSuffix(p, "%") {
		return "", 0, fmt.Errorf("steady-state criterion %q: want snia, fio-dev:P%% or fio-slope:P%%", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(p, "%"), 64)
	if err != nil || !(v > 0) || v > 100 {
		return "", 0, fmt.Errorf("steady-state criterion %q: the percentage must be in (0, 100]", s)
	}
	return m, v / 100, nil
}

// String describes the criterion for reports.
func (s Steady) String() string {
	switch s.Method {
	case MethodFioDev:
		return fmt.Sprintf("fio ss=iops:%g%%: every WA of %d rounds within %g%% of their mean", 100*s.Limit, s.Window, 100*s.Limit)
	case MethodFioSlope:
		return fmt.Sprintf("fio ss=iops_slope:%g%%: least-squares slope over %d rounds at most %g%% of the mean per round", 100*s.Limit, s.Window, 100*s.Limit)
	}
	return fmt.Sprintf("SNIA: %d rounds, excursion <= %.0f%%, slope <= %.0f%% of the mean", s.Window, 100*s.MaxExcursion, 100*s.MaxSlope)
}

// SNIA is the PTS criterion.
// with walab's drift rule beside it.
var SNIA = Steady{Window: 5, MaxExcursion: 0.20, MaxSlope: 0.10, Drift: DefaultDrift}

// Validate names a bad field.
func (s Steady) Validate() error {
	switch {
	case s.Window < 2:
		return fmt.Errorf("steady-state window %d: at least 2 rounds", s.Window)
	case s.Drift < 0 || s.Drift > 1 || math.IsNaN(s.Drift):
		return fmt.Errorf("steady-state drift %v: must be in (0, 1]", s.Drift)
	case s.Method == MethodFioDev || s.Method == MethodFioSlope:
		if !(s.Limit > 0) || s.Limit > 1 {
			return fmt.Errorf("steady-state limit %v: must be in (0, 1]", s.Limit)
		}
		return nil
	case s.Method != "":
		return fmt.Errorf("steady-state method %q: want %s or %s (or empty for SNIA)", s.Method, MethodFioDev, MethodFioSlope)
	case !(s.MaxExcursion > 0) || s.MaxExcursion > 1:
		return fmt.Errorf("steady-state excursion %v: must be in (0, 1]", s.MaxExcursion)
	case !(s.MaxSlope > 0) || s.MaxSlope > 1:
		return fmt.Errorf("steady-state slope %v: must be in (0, 1]", s.MaxSlope)
	}
	return nil
}

// WindowSteady reports whether ys (one window) meets the criterion.
func (s Steady) WindowSteady(ys []float64) bool {
	n := len(ys)
	if n < 2 {
		return false
	}
	var mean float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range ys {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return false
		}
		mean += y
		lo, hi = min(lo, y), max(hi, y)
	}
	mean /= float64(n)
	if !(mean > 0) {
		return false
	}
	drift := math.Abs(slope(ys)) * float64(n-1)
	switch s.Method {
	case MethodFioDev:
		return math.Max(hi-mean, mean-lo) <= s.Limit*mean
	case MethodFioSlope:
		return math.Abs(slope(ys)) <= s.Limit*mean
	}
	return hi-lo <= s.MaxExcursion*mean && drift <= s.MaxSlope*mean
}

// slope is the least-squares slope of ys against 0..n-1.
func slope(ys []float64) float64 {
	n := float64(len(ys))
	xm := (n - 1) / 2
	var ym float64
	for _, y := range ys {
		ym += y
	}
	ym /= n
	var sxy, sxx float64
	for i, y := range ys {
		dx := float64(i) - xm
		sxy += dx * (y - ym)
		sxx += dx * dx
	}
	return sxy / sxx
}

// From returns the index in hours of the first round of the first steady
// window, or -1 when no window of hours is steady. Only complete rounds
// with host writes count (NonZero): idle and missing rounds are skipped,
// as seed 000 skips them.
func (s Steady) From(hours []Hour) int {
	var idx []int
	var ys []float64
	for i, h := range hours {
		if h.NonZero() {
			idx = append(idx, i)
			ys = append(ys, h.WA())
		}
	}
	for i := 0; i+s.Window <= len(ys); i++ {
		if s.WindowSteady(ys[i : i+s.Window]) {
			return idx[i]
		}
	}
	return -1
}

// DefaultDrift is the largest drift of a compared window's WA (and
// throughput) by its least-squares line, as a share of the window's mean:
// 3 %, the issue's "a few percent" (docs/compare.md, "Compared rounds and
// steady state").
const DefaultDrift = 0.03
