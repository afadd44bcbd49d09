package oltp

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// RandOptions are sysbench's --rand-* options.
type RandOptions struct {
	Type       string  // uniform, gaussian, special, pareto, zipfian
	SpecIter   int     // --rand-spec-iter (gaussian, special)
	SpecPct    float64 // --rand-spec-pct: width of the hot slice, % of the range
	SpecRes    float64 // --rand-spec-res: % of values that fall in the hot slice
	ParetoH    float64 // --rand-pareto-h
	ZipfianExp float64 // --rand-zipfian-exp
}

// DefaultRand is sysbench 1.0.20's default: special with 1%/75%/12.
var DefaultRand = RandOptions{Type: "special", SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfianExp: 0.8}

// Dist draws integers in [1, n] following one --rand-type.
type Dist interface {
	Next(r *rand.Rand) int64
}

// NewDist validates o and builds the distribution over [1, n].
func NewDist(o RandOptions, n int64) (Dist, error) {
	if n < 1 {
		return nil, fmt.Errorf("rand: range size %d < 1", n)
	}
	switch o.Type {
	case "uniform":
		return uniform{n}, nil
	case "gaussian":
		if o.SpecIter < 1 {
			return nil, fmt.Errorf("--rand-spec-iter must be >= 1, got %d", o.SpecIter)
		}
		return gaussian{n: n, iter: o.SpecIter}, nil
	case "special":
		if o.SpecIter < 1 {
			return nil, fmt.Errorf("--rand-spec-iter must be >= 1, got %d", o.SpecIter)
		}
		if o.SpecPct < 0 || o.SpecPct > 100 || o.SpecRes < 0 || o.SpecRes > 100 {
			return nil, fmt.Errorf("--rand-spec-pct and --rand-spec-res must be within 0..100")
		}
		hot := max(int64(float64(n)*o.SpecPct/100), 1)
		return special{n: n, iter: o.SpecIter, hot: hot, res: o.SpecRes / 100}, nil
	case "pareto":
		if o.ParetoH <= 0 || o.ParetoH >= 1 {
			return nil, fmt.Errorf("--rand-pareto-h must be within (0,1), got %g", o.ParetoH)
		}
		return pareto{n: n, pow: math.Log(o.ParetoH) / math.Log(1-o.ParetoH)}, nil
	case "zipfian":
		if o.ZipfianExp <= 0 {
			return nil, fmt.Errorf("--rand-zipfian-exp must be > 0, got %g", o.ZipfianExp)
		}
		return newZipf(n, o.ZipfianExp), nil
	}
	return nil, fmt.Errorf("invalid --rand-type %q: want uniform, gaussian, special, pareto or zipfian", o.Type)
}

type uniform struct{ n int64 }

func (u uniform) Next(r *rand.Rand) int64 { return 1 + r.Int64N(u.n) }

// gaussian is the mean of iter uniforms (Irwin-Hall), as sysbench does.
type gaussian struct {
	n    int64
	iter int
}

func (g gaussian) Next(r *rand.Rand) int64 {
	var s float64
	for range g.iter {
		s += r.Float64()
	}
	return 1 + min(int64(s/float64(g.iter)*float64(g.n)), g.n-1)
}

// special: res of the draws land uniformly in a slice of width hot in the
// middle of the range; the rest are gaussian over the remainder, skipping
// the slice (sysbench 1.0.20's default distribution).
type special struct {
	n, hot int64
	iter   int
	res    float64
}

func (s special) Next(r *rand.Rand) int64 {
	cold := s.n - s.hot
	lo := cold / 2 // the hot slice is [lo+1, lo+hot]
	if cold <= 0 || r.Float64() < s.res {
		return 1 + lo + r.Int64N(s.hot)
	}
	var sum float64
	for range s.iter {
		sum += r.Float64()
	}
	v := min(int64(sum/float64(s.iter)*float64(cold)), cold-1)
	if v >= lo {
		v += s.hot
	}
	return 1 + v
}

// pareto: a + n*U^(ln h / ln(1-h)); with h=0.2, 80% of draws hit the lowest 20%.
type pareto struct {
	n   int64
	pow float64
}

func (p pareto) Next(r *rand.Rand) int64 {
	return 1 + min(int64(float64(p.n)*math.Pow(r.Float64(), p.pow)), p.n-1)
}

// zipf samples P(k) ~ 1/k^s on [1,n] by rejection-inversion (Hörmann and
// Derflinger), which works for any s > 0 with O(1) setup; sysbench 1.0.20
// lacks zipfian, its master branch has it with exp 0.8.
type zipf struct {
	n              float64
	s              float64
	hX1, hN, sTail float64
}

func newZipf(n int64, s float64) *zipf {
	z := &zipf{n: float64(n), s: s}
	z.hX1 = z.hIntegral(1.5) - 1
	z.hN = z.hIntegral(z.n + 0.5)
	z.sTail = 2 - z.hIntegralInv(z.hIntegral(2.5)-z.h(2))
	return z
}

func (z *zipf) Next(r *rand.Rand) int64 {
	for {
		u := z.hN + r.Float64()*(z.hX1-z.hN)
		x := z.hIntegralInv(u)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if k-x <= z.sTail || u >= z.hIntegral(k+0.5)-z.h(k) {
			return int64(k)
		}
	}
}

func (z *zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

func (z *zipf) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return helper2((1-z.s)*lx) * lx
}

func (z *zipf) hIntegralInv(x float64) float64 {
	t := x * (1 - z.s)
	if t < -1 {
		t = -1 // rounding guard
	}
	return math.Exp(helper1(t) * x)
}

// helper1 is log1p(x)/x, continuous at 0.
func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// helper2 is expm1(x)/x, continuous at 0.
func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}
