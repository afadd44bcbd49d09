package oltp

import "math/rand/v2"

// Lengths of sysbench's c and pad values: 10 and 5 groups of 11 digits
// joined by '-' ("###########-###########-...").
const (
	cLen   = 10*11 + 9
	padLen = 5*11 + 4
)

// appendDigits appends groups of 11 random digits separated by '-'. It
// draws 64 bits at a time: the load generator must stay cheap next to the
// server.
func appendDigits(b []byte, r *rand.Rand, groups int) []byte {
	for g := range groups {
		if g > 0 {
			b = append(b, '-')
		}
		x := r.Uint64()
		for range 11 {
			b = append(b, byte('0'+x%10))
			x /= 10
		}
	}
	return b
}

func appendC(b []byte, r *rand.Rand) []byte   { return appendDigits(b, r, 10) }
func appendPad(b []byte, r *rand.Rand) []byte { return appendDigits(b, r, 5) }
