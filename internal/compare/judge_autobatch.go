package compare

import "math"

// autoBatch is BatchMeans' batch size when none is set: 1 when the rounds
// of both runs, each about its own mean, have a pooled lag-1
// autocorrelation of at most 0 (as independent as the data can show),
// else ceil(sqrt(n)) of the shorter run. Single rounds give n-1 degrees of
// freedom per run instead of 2 or 3, so the interval of independent rounds
// is about 15% narrower (12 rounds); on AR(1) rounds the rule keeps
// batches in most trials and costs about a point of coverage
// (TestAutoBatchCoverage).
func autoBatch(base, cand []Pair) int {
	n := min(len(base), len(cand))
	if lag1(base, cand) <= 0 {
		return 1
	}
	return int(math.Ceil(math.Sqrt(float64(n))))
}

// lag1 is the pooled lag-1 autocorrelation of the runs' round ratios,
// each run about its own mean; NaN without spread.
func lag1(runs ...[]Pair) float64 {
	var num, den float64
	for _, ps := range runs {
		xs := make([]float64, 0, len(ps))
		var m float64
		for _, p := range ps {
			if p.Den > 0 {
				xs = append(xs, p.Num/p.Den)
				m += p.Num / p.Den
			}
		}
		if len(xs) == 0 {
			continue
		}
		m /= float64(len(xs))
		for i, x := range xs {
			den += (x - m) * (x - m)
			if i+1 < len(xs) {
				num += (x - m) * (xs[i+1] - m)
			}
		}
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}
