package compare

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSteadyWindow(t *testing.T) {
	tests := []struct {
		name string
		ys   []float64
		want bool
	}{
		{"flat", []float64{2.5, 2.5, 2.5, 2.5, 2.5}, true},
		// SNIA worked shape: mean 100, range 18 (<= 20), slope 2/round x 4 = 8 (<= 10).
		{"within both limits", []float64{92, 110, 96, 104, 98}, true},
		{"excursion too wide", []float64{90, 112, 100, 100, 98}, false}, // range 22 > 20
		{"rising", []float64{90, 95, 100, 105, 110}, false},             // slope 5 x 4 = 20 > 10
		{"oscillating wildly", []float64{1, 3, 1, 3, 1}, false},
		{"zero mean", []float64{0, 0, 0}, false},
		{"NaN", []float64{1, math.NaN(), 1}, false},
		{"one value", []float64{1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, SNIA.WindowSteady(tt.ys))
		})
	}
}

func TestSteadyFrom(t *testing.T) {
	// WA rising while the drive fills, then flat: the window 2.2, 2.5 x 4
	// (hour 5, index 4) is the first steady one — range 0.3 <= 20% of its
	// mean 2.44, slope 0.06 x 4 = 0.24 <= 10% of it; 1.9, 2.2, 2.5 x 3 is not
	// (range 0.6 > 0.47).
	rising := hours(1.0, 1.3, 1.6, 1.9, 2.2, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5)
	require.Equal(t, 4, SNIA.From(rising))
	require.Equal(t, -1, SNIA.From(hours(1, 1.5, 2, 2.5, 3, 3.5, 4)), "never steady")
	require.Equal(t, -1, SNIA.From(hours(2.5, 2.5)), "shorter than a window")
	// Idle and missing rounds are skipped, not treated as WA 0.
	withGaps := hours(2.5, 0, 2.5, 2.5, 2.5, 2.5)
	withGaps[3] = Hour{Hour: 4, HostBytes: MiB, Missing: "no NAND data"}
	withGaps = append(withGaps, hours(2.5)...)
	require.Equal(t, 0, SNIA.From(withGaps))
	require.ErrorContains(t, Steady{Window: 1, MaxExcursion: .2, MaxSlope: .1}.Validate(), "window 1")
	require.NoError(t, SNIA.Validate())
}

func FuzzSteadyWindow(f *testing.F) {
	f.Add(2.5, 2.5, 2.5, 2.5, 2.5)
	f.Add(92.0, 110.0, 96.0, 104.0, 98.0)
	f.Add(0.0, -1.0, 1e308, -1e308, 3.0)
	f.Fuzz(func(t *testing.T, a, b, c, d, e float64) {
		ys := []float64{a, b, c, d, e}
		if !SNIA.WindowSteady(ys) {
			return
		}
		// Whatever it accepts meets the definition.
		lo, hi, mean := math.Inf(1), math.Inf(-1), 0.0
		for _, y := range ys {
			lo, hi, mean = min(lo, y), max(hi, y), mean+y/5
		}
		if hi-lo > 0.2*mean*(1+1e-9) || mean <= 0 {
			t.Fatalf("accepted %v: range %v, mean %v", ys, hi-lo, mean)
		}
	})
}

// TestFioCriteria: fio's ss= forms on WA per round. A flat series with ±1%
// noise is steady for iops:2% and iops_slope:0.5%; a series rising 3% per
// round is steady for neither, though each value is within 6% of the
// window's mean (so iops:6% accepts it: the two forms ask different things).
func TestFioCriteria(t *testing.T) {
	flat := []float64{2.0, 2.02, 1.98, 2.01, 1.99}
	rising := []float64{2.0, 2.06, 2.12, 2.18, 2.24}
	dev2 := Steady{Window: 5, Method: MethodFioDev, Limit: 0.02}
	dev5 := Steady{Window: 5, Method: MethodFioDev, Limit: 0.06}
	slope := Steady{Window: 5, Method: MethodFioSlope, Limit: 0.005}
	require.True(t, dev2.WindowSteady(flat))
	require.True(t, slope.WindowSteady(flat))
	require.False(t, dev2.WindowSteady(rising))
	require.True(t, dev5.WindowSteady(rising))
	require.False(t, slope.WindowSteady(rising))
	require.False(t, SNIA.WindowSteady(rising[:0]))

	for in, want := range map[string][2]any{
		"snia":           {"", 0.0},
		"fio-dev:2%":     {MethodFioDev, 0.02},
		"fio-slope:0.5%": {MethodFioSlope, 0.005},
	} {
		m, l, err := ParseCriterion(in)
		require.NoError(t, err, in)
		require.Equal(t, want[0], m, in)
		require.InDelta(t, want[1], l, 1e-12, in)
	}
	for _, bad := range []string{"fio-dev", "fio-dev:2", "iops:2%", "fio-slope:0%", "fio-dev:200%"} {
		_, _, err := ParseCriterion(bad)
		require.Error(t, err, bad)
	}
	require.Contains(t, slope.String(), "fio ss=iops_slope:0.5%")
	require.ErrorContains(t, Steady{Window: 5, Method: "fio"}.Validate(), `method "fio"`)
}
