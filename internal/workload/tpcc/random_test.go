package tpcc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNURandRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name    string
		a, x, y int
	}{
		{"c_last", aCLast, 0, 999},
		{"c_id", aCID, 1, 3000},
		{"ol_i_id", aOLIID, 1, 100000},
		{"small", aCID, 1, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []int{0, 1, tc.a / 2, tc.a} {
				lo, hi := tc.y, tc.x
				for range 20000 {
					v := NURand(r, tc.a, c, tc.x, tc.y)
					lo, hi = min(lo, v), max(hi, v)
				}
				require.GreaterOrEqual(t, lo, tc.x)
				require.LessOrEqual(t, hi, tc.y)
				// The whole range is reachable.
				require.Less(t, lo, tc.x+(tc.y-tc.x)/50)
				require.Greater(t, hi, tc.y-(tc.y-tc.x)/50)
			}
		})
	}
}

// NURand is skewed: with A=255 over 0..999, values whose low byte has many
// bits set are hit more often than a uniform draw would hit them. The
// heaviest tenth of the values must get clearly more than a tenth of draws.
func TestNURandIsNonUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	counts := make([]int, 1000)
	const n = 200000
	for range n {
		counts[NURand(r, aCLast, 123, 0, 999)]++
	}
	sorted := append([]int(nil), counts...)
	slices.SortFunc(sorted, func(a, b int) int { return b - a })
	top := 0
	for _, c := range sorted[:100] {
		top += c
	}
	require.Greater(t, float64(top)/n, 0.2, "top 10%% of last names get %d of %d draws", top, n)
	// Nearly every value appears; a few need a rare pair of draws.
	distinct := 0
	for _, c := range counts {
		if c > 0 {
			distinct++
		}
	}
	require.Greater(t, distinct, 900)
}

func TestCLastDeltaRule(t *testing.T) {
	for _, tc := range []struct {
		load, run int
		ok        bool
	}{
		{0, 65, true}, {0, 64, false}, {0, 119, true}, {0, 120, false},
		{200, 135, true}, {200, 104, false}, {10, 106, false}, {10, 122, false},
		{10, 121, true}, {255, 136, true}, {255, 190, true}, {100, 100, false},
	} {
		require.Equal(t, tc.ok, ValidCLastDelta(tc.load, tc.run), "load %d run %d", tc.load, tc.run)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for cLoad := 0; cLoad <= aCLast; cLoad++ {
		for range 20 {
			run := NewRunConstants(r, Constants{CLast: cLoad})
			require.True(t, ValidCLastDelta(cLoad, run.CLast), "load %d run %d", cLoad, run.CLast)
			require.LessOrEqual(t, run.CID, aCID)
			require.LessOrEqual(t, run.OLIID, aOLIID)
		}
	}
	for range 1000 {
		c := NewLoadConstants(r)
		require.True(t, c.CLast >= 0 && c.CLast <= aCLast && c.CID >= 0 && c.CID <= aCID && c.OLIID >= 0 && c.OLIID <= aOLIID, "%+v", c)
	}
}

func TestLastName(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "BARBARBAR"}, {371, "PRICALLYOUGHT"}, {999, "EINGEINGEING"}, {40, "BARPRESBAR"}, {186, "OUGHTATIONANTI"},
	} {
		require.Equal(t, tc.want, LastName(tc.n))
	}
	seen := map[string]bool{}
	for n := range 1000 {
		name := LastName(n)
		require.LessOrEqual(t, len(name), 16, "fits c_last varchar(16)")
		seen[name] = true
	}
	require.Len(t, seen, 1000, "the 1000 numbers give 1000 distinct names")
}

func TestStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	originals := 0
	const n = 20000
	prefix := []byte("kept\t")
	for range n {
		s := appendAString(append([]byte(nil), prefix...), r, 26, 50)
		require.Equal(t, prefix, s[:len(prefix)], "appended after what the buffer held")
		require.True(t, len(s)-len(prefix) >= 26 && len(s)-len(prefix) <= 50)
		d := appendData(append([]byte(nil), prefix...), r)
		require.Equal(t, prefix, d[:len(prefix)])
		d = d[len(prefix):]
		require.True(t, len(d) >= 26 && len(d) <= 50, "%s", d)
		if contains(string(d), "ORIGINAL") {
			originals++
		}
		z := appendZip(nil, r)
		require.Len(t, z, 9)
		require.Equal(t, "11111", string(z[4:]))
	}
	// 10% carry ORIGINAL: 4-sigma bound of a binomial(n, 0.1).
	sigma := math.Sqrt(n * 0.1 * 0.9)
	require.InDelta(t, n*0.1, originals, 4*sigma)
}

// TestStringCharacters checks that the strings use exactly their alphabet,
// each character about equally often (the generator takes several
// characters from one 64-bit draw, skipping values beyond the alphabet),
// and the lengths cover [lo, hi].
func TestStringCharacters(t *testing.T) {
	for _, tc := range []struct {
		name     string
		alphabet string
		gen      func([]byte, *rand.Rand, int, int) []byte
	}{
		{"a-string", alnum, appendAString},
		{"n-string", "0123456789", appendNString},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, 12))
			counts := map[byte]int{}
			lengths := map[int]int{}
			total := 0
			for range 20000 {
				s := tc.gen(nil, r, 1, 30)
				lengths[len(s)]++
				for _, c := range s {
					counts[c]++
				}
				total += len(s)
			}
			require.Len(t, lengths, 30, "every length in 1..30 occurs")
			require.Len(t, counts, len(tc.alphabet), "the characters are the alphabet")
			p := 1 / float64(len(tc.alphabet))
			sigma := math.Sqrt(float64(total) * p * (1 - p))
			for i := range len(tc.alphabet) {
				c := tc.alphabet[i]
				require.InDelta(t, float64(total)*p, counts[c], 5*sigma, "character %q", c)
			}
		})
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestMoneyFormatting(t *testing.T) {
	for _, tc := range []struct {
		c    int64
		want string
	}{{0, "0.00"}, {5, "0.05"}, {-1000, "-10.00"}, {30000000, "300000.00"}, {123456, "1234.56"}} {
		require.Equal(t, tc.want, cents(tc.c))
		if tc.c >= 0 {
			back, err := parseCents(tc.want)
			require.NoError(t, err)
			require.Equal(t, tc.c, back)
		}
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0.0000"}, {5, "0.0005"}, {2000, "0.2000"}, {5000, "0.5000"}, {1234, "0.1234"}} {
		require.Equal(t, tc.want, fraction4(tc.n))
	}
}

func TestParseCents(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"12.34", 1234, false}, {"7", 700, false}, {"0.5", 50, false}, {"100.00", 10000, false},
		{"", 0, true}, {".5", 0, true}, {"1.234", 0, true}, {"-1.00", 0, true}, {"1e3", 0, true},
		{"12.x", 0, true}, {"1234567890123456", 0, true},
	} {
		got, err := parseCents(tc.in)
		if tc.err {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func FuzzParseCents(f *testing.F) {
	for _, s := range []string{"12.34", "0", "1.2.3", "", "99999.99", "-5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseCents(s)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, v, int64(0))
		// Whatever parses formats back to an equivalent amount.
		back, err := parseCents(cents(v))
		require.NoError(t, err)
		require.Equal(t, v, back)
	})
}
