package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

// The two narrower intervals tried for issue 31 and not kept: each is the
// batch-means interval's log-scale Welch t interval with another variance.

// obmVar is the overlapping batch means variance of the mean (Meketon and
// Schmeiser 1984) with batches of b rounds, and its degrees of freedom
// 1.5 (n/b - 1).
func obmVar(ps []Pair, b int) (float64, float64) {
	n, m, s := len(ps), ratio(ps), 0.0
	for j := 0; j+b <= n; j++ {
		d := ratio(ps[j:j+b]) - m
		s += d * d
	}
	return float64(b) * s / float64((n-b+1)*(n-b)), 1.5 * (float64(n)/float64(b) - 1)
}

// ar1Var is single rounds' variance of the mean times (1+r)/(1-r), r the
// pooled lag-1 autocorrelation, with n(1-r)/(1+r) - 1 degrees of freedom.
func ar1Var(r float64) func([]Pair, int) (float64, float64) {
	r = math.Max(0, math.Min(r, 0.95))
	f := (1 + r) / (1 - r)
	return func(ps []Pair, _ int) (float64, float64) {
		v, k, _ := batchVar(ps, 1)
		return v * f, math.Max(1, float64(k)/f-1)
	}
}

func welch(base, cand []Pair, size int, variance func([]Pair, int) (float64, float64)) Interval {
	rb, rc := ratio(base), ratio(cand)
	vb, db := variance(base, size)
	vc, dc := variance(cand, size)
	a, c := vc/(rc*rc), vb/(rb*rb)
	se := math.Sqrt(a + c)
	df := (a + c) * (a + c) / (a*a/dc + c*c/db)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	lr := math.Log(rc / rb)
	return Interval{Est: rc/rb - 1, Lo: math.Expm1(lr - q*se), Hi: math.Expm1(lr + q*se), OK: true}
}

// TestNarrowerIntervalsUndercover: on 12 rounds per run (the shipped seed
// 000 plan compares 12), the two narrower intervals tried cover the true
// -12% less often than walab's batch means under AR(1) noise with
// coefficient 0.5, and under level shifts (each round the load level jumps
// with probability 0.2, as when other work comes and goes), so their
// narrowness is bought with false verdicts (docs/compare.md).
func TestNarrowerIntervalsUndercover(t *testing.T) {
	shifts := func(r *rand.Rand, tr float64) []Pair {
		out, lvl := make([]Pair, 12), r.NormFloat64()*0.04
		for i := range out {
			if r.Float64() < 0.2 {
				lvl = r.NormFloat64() * 0.04
			}
			out[i] = Pair{Num: tr * (1 + lvl + r.NormFloat64()*0.02), Den: 1}
		}
		return out
	}
	for name, gen := range map[string]func(*rand.Rand, float64) []Pair{
		"AR(1) 0.5":    func(r *rand.Rand, tr float64) []Pair { return arRun(r, 12, tr, 0.5, 0.03) },
		"level shifts": shifts,
	} {
		r := rand.New(rand.NewPCG(7, 7))
		const trials = 2000
		var hit [3]int
		var width [3]float64
		for range trials {
			b, c := gen(r, 2.5), gen(r, 2.2)
			for k, iv := range []Interval{BatchMeans{}.RelChange(b, c), welch(b, c, 4, obmVar), welch(b, c, 1, ar1Var(lag1(b, c)))} {
				if iv.Lo <= -0.12 && -0.12 <= iv.Hi {
					hit[k]++
				}
				width[k] += iv.Hi - iv.Lo
			}
		}
		t.Logf("%s: coverage batch means %.3f, overlapping batch means %.3f, AR(1)-adjusted %.3f; mean width %.4f %.4f %.4f",
			name, float64(hit[0])/trials, float64(hit[1])/trials, float64(hit[2])/trials, width[0]/trials, width[1]/trials, width[2]/trials)
		require.Less(t, hit[1], hit[0]-trials/100, name+": overlapping batch means")
		require.Less(t, hit[2], hit[0]-trials/100, name+": AR(1)-adjusted")
		require.Less(t, width[1], width[0], name)
	}
}
