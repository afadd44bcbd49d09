package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// U128 is an exact unsigned 128-bit counter. NVMe keeps its lifetime
// counters (data units, commands, media bytes) in 16 bytes; a float64 loses
// the low digits long before a drive wears out, so decoding keeps them exact.
type U128 struct{ Lo, Hi uint64 }

// LE128 reads a little-endian unsigned integer of up to 16 bytes. Shorter
// input is zero-extended rather than a panic, so LE128(b[:6]) is the 48-bit
// value vendors use; bytes past the 16th are ignored.
func LE128(b []byte) U128 {
	if len(b) >= 16 { // the common case: a full NVMe counter
		return U128{Lo: binary.LittleEndian.Uint64(b), Hi: binary.LittleEndian.Uint64(b[8:])}
	}
	var u U128
	for i := 0; i < len(b) && i < 16; i++ {
		if i < 8 {
			u.Lo |= uint64(b[i]) << (8 * i)
		} else {
			u.Hi |= uint64(b[i]) << (8 * (i - 8))
		}
	}
	return u
}

// U128From widens a uint64.
func U128From(v uint64) U128 { return U128{Lo: v} }

// Float64 is the nearest float64 (what Prometheus stores), correctly rounded.
func (u U128) Float64() float64 {
	if u.Hi == 0 {
		return float64(u.Lo)
	}
	// Take the top 64 significant bits and fold every lower bit into a sticky
	// bit, so the single rounding in float64() is the correct one.
	n := bits.LeadingZeros64(u.Hi)
	top := u.Hi<<n | u.Lo>>(64-n)
	if u.Lo<<n != 0 {
		top |= 1
	}
	return math.Ldexp(float64(top), 64-n)
}

// Uint64 returns the value if it fits in 64 bits.
func (u U128) Uint64() (uint64, bool) { return u.Lo, u.Hi == 0 }

// IsZero reports u == 0.
func (u U128) IsZero() bool { return u.Lo == 0 && u.Hi == 0 }

// Cmp returns -1, 0 or +1 as u is less than, equal to or greater than v.
func (u U128) Cmp(v U128) int {
	switch {
	case u.Hi < v.Hi, u.Hi == v.Hi && u.Lo < v.Lo:
		return -1
	case u == v:
		return 0
	}
	return 1
}

// Add returns u+v; false when the sum does not fit in 128 bits.
func (u U128) Add(v U128) (U128, bool) {
	lo, c := bits.Add64(u.Lo, v.Lo, 0)
	hi, c := bits.Add64(u.Hi, v.Hi, c)
	return U128{Lo: lo, Hi: hi}, c == 0
}

// MulUint64 returns u*m; false when the product does not fit in 128 bits.
func (u U128) MulUint64(m uint64) (U128, bool) {
	carry, lo := bits.Mul64(u.Lo, m)
	hiOver, hi := bits.Mul64(u.Hi, m)
	hi, c := bits.Add64(hi, carry, 0)
	return U128{Lo: lo, Hi: hi}, hiOver == 0 && c == 0
}

const tenTo19 = 10_000_000_000_000_000_000

// String is the exact decimal value.
func (u U128) String() string {
	if u.Hi == 0 {
		return strconv.FormatUint(u.Lo, 10)
	}
	// Split off the low 19 decimal digits: u = q*1e19 + r, r < 1e19.
	qHi := u.Hi / tenTo19
	qLo, r := bits.Div64(u.Hi%tenTo19, u.Lo, tenTo19)
	return U128{Lo: qLo, Hi: qHi}.String() + fmt.Sprintf("%019d", r)
}

// MarshalText writes the exact decimal, so JSON and YAML keep every digit.
func (u U128) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText parses a decimal written by MarshalText.
func (u *U128) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return errors.New("decode: empty 128-bit number")
	}
	var v U128
	for _, c := range b {
		if c < '0' || c > '9' {
			return fmt.Errorf("decode: %q is not a decimal 128-bit number", b)
		}
		var ok1, ok2 bool
		v, ok1 = v.MulUint64(10)
		v, ok2 = v.Add(U128{Lo: uint64(c - '0')})
		if !ok1 || !ok2 {
			return fmt.Errorf("decode: %q overflows 128 bits", b)
		}
	}
	*u = v
	return nil
}

// PutLE128 writes u as 16 little-endian bytes at b[0:16].
func PutLE128(b []byte, u U128) {
	binary.LittleEndian.PutUint64(b[0:], u.Lo)
	binary.LittleEndian.PutUint64(b[8:], u.Hi)
}
