package tpcc

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Spec 2.1.6: the A constants of NURand for the three non-uniform fields.
const (
	aCLast = 255
	aCID   = 1023
	aOLIID = 8191
)

// Constants are the C values of NURand (spec 2.1.6). All terminals of a
// run share one set.
type Constants struct {
	CLast, CID, OLIID int
}

// NewLoadConstants draws the C-Load values used while populating the tables.
func NewLoadConstants(r *rand.Rand) Constants {
	return Constants{
		CLast: r.IntN(aCLast + 1),
		CID:   r.IntN(aCID + 1),
		OLIID: r.IntN(aOLIID + 1),
	}
}

// ValidCLastDelta reports whether C-Run for C_LAST is acceptable against
// C-Load (spec 2.1.6.1): 65 <= |delta| <= 119 and |delta| not 96 or 112.
func ValidCLastDelta(cLoad, cRun int) bool {
	d := cRun - cLoad
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// NewRunConstants draws C-Run values from C-Load: C_LAST obeys the delta
// rule, C_ID and OL_I_ID are fresh (the spec does not constrain them).
func NewRunConstants(r *rand.Rand, load Constants) Constants {
	run := Constants{CID: r.IntN(aCID + 1), OLIID: r.IntN(aOLIID + 1)}
	// Every C-Load in 0..255 has valid C-Run values (|delta| 65..95 fits on
	// one side), so rejection sampling ends quickly.
	for {
		c := r.IntN(aCLast + 1)
		if ValidCLastDelta(load.CLast, c) {
			run.CLast = c
			return run
		}
	}
}

// uniform returns an integer in [lo, hi].
func uniform(r *rand.Rand, lo, hi int) int {
	return lo + r.IntN(hi-lo+1)
}

// NURand is the spec's non-uniform random: (((random(0,A) | random(x,y)) + C) % (y-x+1)) + x.
func NURand(r *rand.Rand, a, c, x, y int) int {
	return (((uniform(r, 0, a) | uniform(r, x, y)) + c) % (y - x + 1)) + x
}

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName builds C_LAST from the three decimal digits of n (0..999), spec 4.3.2.3.
func LastName(n int) string {
	var b strings.Builder
	b.Grow(16)
	b.WriteString(syllables[(n/100)%10])
	b.WriteString(syllables[(n/10)%10])
	b.WriteString(syllables[n%10])
	return b.String()
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// appendAString appends the spec's a-string to b: random alphanumerics
// (none needs escaping in a literal), length in [lo, hi]. The characters
// come six bits at a time from one 64-bit draw, a value above 61 skipped,
// so each is exactly uniform over alnum and a draw serves about ten of them:
// a warehouse holds about 50 million such characters, and one IntN per
// character was almost half of the load's client CPU (docs/loadgen.md).
func appendAString(b []byte, r *rand.Rand, lo, hi int) []byte {
	return appendRandom(b, r, uniform(r, lo, hi), alnum, 6)
}

// appendNString appends the spec's n-string to b, random digits with a
// length in [lo, hi].
func appendNString(b []byte, r *rand.Rand, lo, hi int) []byte {
	return appendRandom(b, r, uniform(r, lo, hi), "0123456789", 4)
}

// appendRandom appends n characters of alphabet, drawn bits at a time from
// 64-bit draws (2^bits >= len(alphabet); a value beyond the alphabet is
// skipped).
func appendRandom(b []byte, r *rand.Rand, n int, alphabet string, bits uint) []byte {
	b = slices.Grow(b, n)
	out := b[len(b) : len(b)+n]
	mask := uint64(1)<<bits - 1
	per := 64 / int(bits)
	for i := 0; i < n; {
		x := r.Uint64()
		for range per {
			if v := x & mask; v < uint64(len(alphabet)) {
				out[i] = alphabet[v]
				if i++; i == n {
					break
				}
			}
			x >>= bits
		}
	}
	return b[:len(b)+n]
}

// appendZip appends 4 random digits followed by "11111" (spec 4.3.2.7).
func appendZip(b []byte, r *rand.Rand) []byte { return append(appendNString(b, r, 4, 4), "11111"...) }

// appendData appends I_DATA/S_DATA to b: 26..50 chars, 10% of them holding
// "ORIGINAL" at a random position (spec 4.3.3.1).
func appendData(b []byte, r *rand.Rand) []byte {
	start := len(b)
	b = appendAString(b, r, 26, 50)
	if r.IntN(10) == 0 {
		pos := r.IntN(len(b) - start - 8 + 1)
		copy(b[start+pos:], "ORIGINAL")
	}
	return b
}

// cents formats an amount in cents as a decimal literal ("-10.00").
func cents(c int64) string {
	neg := c < 0
	if neg {
		c = -c
	}
	s := make([]byte, 0, 24)
	if neg {
		s = append(s, '-')
	}
	s = appendInt(s, c/100)
	s = append(s, '.', byte('0'+(c%100)/10), byte('0'+c%10))
	return string(s)
}

// fraction4 formats n/10000 as "0.nnnn" (taxes, discounts: decimal(4,4)).
func fraction4(n int) string {
	s := []byte("0.0000")
	for i := 5; i >= 2; i-- {
		s[i] = byte('0' + n%10)
		n /= 10
	}
	return string(s)
}

func appendInt(b []byte, v int64) []byte {
	if v == 0 {
		return append(b, '0')
	}
	var tmp [20]byte
	i := len(tmp)
	for v > 0 {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, tmp[i:]...)
}
