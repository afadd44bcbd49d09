package ftl

import (
	"fmt"
	"math"
)

// LambertW0 is the principal branch of the Lambert W function (w·e^w = x) for
// x in [-1/e, +inf), by Halley iteration. It returns NaN outside the domain.
func LambertW0(x float64) float64 {
	const minX = -1 / math.E
	switch {
	case math.IsNaN(x) || x < minX:
		return math.NaN()
	case x == minX:
		return -1
	case x == 0:
		return 0
	}
	// Start near the branch point with its series, elsewhere with log1p.
	w := math.Log1p(x)
	if x < -0.25 {
		p := math.Sqrt(2 * (math.E*x + 1))
		w = -1 + p - p*p/3
	}
	for range 64 {
		ew := math.Exp(w)
		f := w*ew - x
		wp1 := w + 1
		d := ew*wp1 - (w+2)*f/(2*wp1)
		if d == 0 {
			break
		}
		step := f / d
		w -= step
		if math.Abs(step) <= 1e-15*(1+math.Abs(w)) {
			break
		}
	}
	return w
}

// UniformWA is the analytic write amplification of uniform random writes
// with a cleaner that, in steady state, finds victims whose valid fraction u
// solves u = exp(-α(1-u)), α = physical/logical capacity:
//
//	WA = 1/(1-u) = α / (α + W0(-α·e^{-α}))
//
// This is Desnoyers' closed form for LRU (FIFO) cleaning under uniform
// traffic (SYSTOR 2012, "Analytic Modeling of SSD Write Performance"), and the
// expression of Xiang and Kurkoski ("An Improved Analytical Expression for
// Write Amplification in NAND Flash", arXiv:1110.4245) for greedy cleaning in
// the many-pages-per-block limit: their example gives 2.36 at
// over-provisioning 0.3 (α = 1.3) against 2.35 simulated.
func UniformWA(alpha float64) (float64, error) {
	if math.IsNaN(alpha) || alpha <= 1 {
		return 0, fmt.Errorf("ftl: α = physical/logical must exceed 1, got %v", alpha)
	}
	return alpha / (alpha + LambertW0(-alpha*math.Exp(-alpha))), nil
}

// AlphaFromSpare converts a spare factor (physical-logical)/physical to α = physical/logical.
func AlphaFromSpare(spare float64) float64 { return 1 / (1 - spare) }
