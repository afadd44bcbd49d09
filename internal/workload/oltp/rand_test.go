package oltp

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDistributions checks each --rand-type's shape with fixed seeds: the
// share of draws that land in a slice of the range.
func TestDistributions(t *testing.T) {
	const n, draws = 10000, 200000
	type share struct {
		lo, hi   int64   // slice [lo, hi]
		min, max float64 // expected fraction of draws in it
	}
	for _, tc := range []struct {
		opt    RandOptions
		shares []share
	}{
		{RandOptions{Type: "uniform"}, []share{{1, 1000, 0.09, 0.11}, {9001, 10000, 0.09, 0.11}}},
		// Irwin-Hall of 12: the middle 10% holds ~40%, the outer 20% almost nothing.
		{RandOptions{Type: "gaussian", SpecIter: 12}, []share{{4501, 5500, 0.35, 0.45}, {1, 1000, 0, 0.001}}},
		// 75% in the 1% slice in the middle.
		{DefaultRand, []share{{4951, 5050, 0.74, 0.77}, {1, 1000, 0, 0.001}}},
		// 80/20.
		{RandOptions{Type: "pareto", ParetoH: 0.2}, []share{{1, 2000, 0.78, 0.82}}},
		// Zipf 0.8 over 10^4: H = sum k^-0.8 ~ n^0.2/0.2 + zeta(0.8) ~ 27.1, so P(1) ~ 0.037, P(k<=100) ~ 8.1/27.1.
		{RandOptions{Type: "zipfian", ZipfianExp: 0.8}, []share{{1, 1, 0.034, 0.040}, {1, 100, 0.27, 0.33}}},
	} {
		t.Run(tc.opt.Type, func(t *testing.T) {
			d, err := NewDist(tc.opt, n)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(42, 1))
			counts := make([]int, len(tc.shares))
			for range draws {
				v := d.Next(r)
				require.True(t, v >= 1 && v <= n, "draw %d out of [1,%d]", v, n)
				for i, s := range tc.shares {
					if v >= s.lo && v <= s.hi {
						counts[i]++
					}
				}
			}
			for i, s := range tc.shares {
				f := float64(counts[i]) / draws
				require.True(t, f >= s.min && f <= s.max, "share of [%d,%d] = %.4f, want %.3f..%.3f", s.lo, s.hi, f, s.min, s.max)
			}
		})
	}
}

func TestDistEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []string{"uniform", "gaussian", "special", "pareto", "zipfian"} {
		o := DefaultRand
		o.Type = typ
		for _, n := range []int64{1, 2, 3, 100} {
			d, err := NewDist(o, n)
			require.NoError(t, err)
			for range 2000 {
				v := d.Next(r)
				require.True(t, v >= 1 && v <= n, "%s n=%d: %d", typ, n, v)
			}
		}
	}
	for _, tc := range []struct {
		o    RandOptions
		want string
	}{
		{RandOptions{Type: "zipf"}, `invalid --rand-type "zipf"`},
		{RandOptions{Type: "pareto", ParetoH: 1}, "--rand-pareto-h"},
		{RandOptions{Type: "gaussian"}, "--rand-spec-iter"},
		{RandOptions{Type: "special", SpecIter: 12, SpecPct: 101}, "--rand-spec-pct"},
		{RandOptions{Type: "zipfian"}, "--rand-zipfian-exp"},
	} {
		_, err := NewDist(tc.o, 10)
		require.ErrorContains(t, err, tc.want)
	}
	_, err := NewDist(DefaultRand, 0)
	require.Error(t, err)
}

func TestRowStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	c := appendC(nil, r)
	p := appendPad(nil, r)
	require.Len(t, c, cLen)
	require.Len(t, p, padLen)
	require.Regexp(t, regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){9}$`), string(c))
	require.Regexp(t, regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){4}$`), string(p))
}

func TestOptionsValidate(t *testing.T) {
	ok := DefaultOptions("oltp_read_write")
	require.NoError(t, ok.validate("oltp_read_write"))
	require.Equal(t, 1, DefaultOptions("oltp_point_select").PointSelects)
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		// The flags' ranges, in the command line's words.
		{func(o *Options) { o.Tables = 0 }, "--tables=0 out of range 1..100000"},
		{func(o *Options) { o.Tables = maxTables + 1 }, "--tables=100001 out of range 1..100000"},
		{func(o *Options) { o.TableSize = 0 }, "--table-size=0 out of range"},
		{func(o *Options) { o.RangeSize = 0 }, "--range-size=0 is below the minimum 1"},
		{func(o *Options) { o.PointSelects = -1 }, "--point-selects=-1 is below the minimum 0"},
		{func(o *Options) { o.DeleteInserts = -1 }, "--delete-inserts=-1 is below the minimum 0"},
		{func(o *Options) { o.StorageEngine = "innodb; DROP" }, "not an identifier"},
		{func(o *Options) { o.Rand.Type = "x" }, "--rand-type"},
	} {
		o := DefaultOptions("oltp_read_write")
		tc.mod(&o)
		require.ErrorContains(t, o.validate("oltp_read_write"), tc.want)
	}
	require.ErrorContains(t, ok.validate("oltp_nope"), "unknown OLTP script")
}
