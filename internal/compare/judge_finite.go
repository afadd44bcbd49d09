package compare

import (
	"fmt"
	"math"
)

// figure is one number a round's row is built from, with its name.
type figure struct {
	name string
	v    float64
}

// nonFinite is the reason a round is missing when one of its figures is
// not a finite number (a broken exporter's sample, a store's bug): +Inf or
// NaN is never a WA, an idle round or a sample count. "" when all are.
func nonFinite(figs ...figure) string {
	for _, f := range figs {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Sprintf("%s is %s, not a finite number (a broken exporter or store)", f.name, fmtNonFinite(f.v))
		}
	}
	return ""
}

func fmtNonFinite(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v > 0:
		return "+Inf"
	}
	return "-Inf"
}
