package compare

import (
	"fmt"
	"math"
)

// Steady is the steady-state criterion of SNIA's Solid State Storage
// Performance Test Specification (PTS): a measurement window of Window
// consecutive rounds is steady when its data excursion (max - min) is at
// most MaxExcursion of the window's mean and the excursion of its
// least-squares line across the window (|slope| x (Window-1)) is at most
// MaxSlope of that mean. walab applies it to the hourly (per round) WA.
type Steady struct {
	Window       int     // rounds; SNIA: 5
	MaxExcursion float64 // share of the mean; SNIA: 0.20
	MaxSlope     float64 // share of the mean; SNIA: 0.10
}

// SNIA is the PTS criterion.
var SNIA = Steady{Window: 5, MaxExcursion: 0.20, MaxSlope: 0.10}

// Validate names a bad field.
func (s Steady) Validate() error {
	switch {
	case s.Window < 2:
		return fmt.Errorf("steady-state window %d: at least 2 rounds", s.Window)
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
	return hi-lo <= s.MaxExcursion*mean && math.Abs(slope(ys))*float64(n-1) <= s.MaxSlope*mean
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
