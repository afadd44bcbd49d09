package decode

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

var maxU128 = U128{Lo: math.MaxUint64, Hi: math.MaxUint64}

func TestLE128(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want U128
	}{
		{"empty", nil, U128{}},
		{"one byte", []byte{0x7f}, U128{Lo: 0x7f}},
		{"48-bit", []byte{1, 2, 3, 4, 5, 6}, U128{Lo: 0x060504030201}},
		{"low half only", []byte{1, 0, 0, 0, 0, 0, 0, 0x80}, U128{Lo: 0x8000000000000001}},
		{"both halves", []byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0x40}, U128{Lo: 1, Hi: 0x4000000000000002}},
		{"extra bytes ignored", append(make([]byte, 16), 0xff), U128{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, LE128(tt.in))
		})
	}
}

func TestU128String(t *testing.T) {
	tests := []struct {
		in   U128
		want string
	}{
		{U128{}, "0"},
		{U128{Lo: math.MaxUint64}, "18446744073709551615"},
		{U128{Hi: 1}, "18446744073709551616"},
		{U128{Lo: 1, Hi: 1}, "18446744073709551617"},
		{U128{Lo: 0x19E0C9BAB2400000, Hi: 0x21E}, "10000000000000000000000"}, // 1e22: a zero low 19-digit block
		{maxU128, "340282366920938463463374607431768211455"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, tt.in.String())
			var back U128
			require.NoError(t, back.UnmarshalText([]byte(tt.want)))
			require.Equal(t, tt.in, back)
		})
	}
}

func TestU128UnmarshalTextErrors(t *testing.T) {
	for _, in := range []string{"", "-1", "1.5", "0x10", "340282366920938463463374607431768211456"} {
		var u U128
		require.Error(t, u.UnmarshalText([]byte(in)), in)
	}
}

func toBig(u U128) *big.Int {
	b := new(big.Int).SetUint64(u.Hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(u.Lo))
}

// TestU128Arithmetic checks Mul, Add, Cmp and Float64 against math/big over
// values chosen around the 64-bit and 128-bit edges.
func TestU128Arithmetic(t *testing.T) {
	limit := new(big.Int).Lsh(big.NewInt(1), 128)
	vals := []U128{{}, {Lo: 1}, {Lo: math.MaxUint64}, {Hi: 1}, {Lo: 1, Hi: 1}, above64, {Lo: 1 << 63, Hi: 1 << 63}, maxU128}
	muls := []uint64{0, 1, 2, 10, DataUnitBytes, EnduranceUnitBytes, 1 << 32, math.MaxUint64}
	for _, a := range vals {
		for _, m := range muls {
			got, ok := a.MulUint64(m)
			want := new(big.Int).Mul(toBig(a), new(big.Int).SetUint64(m))
			require.Equal(t, want.Cmp(limit) < 0, ok, "%s*%d", a, m)
			if ok {
				require.Equal(t, want.String(), got.String(), "%s*%d", a, m)
			}
		}
		for _, b := range vals {
			got, ok := a.Add(b)
			want := new(big.Int).Add(toBig(a), toBig(b))
			require.Equal(t, want.Cmp(limit) < 0, ok, "%s+%s", a, b)
			if ok {
				require.Equal(t, want.String(), got.String(), "%s+%s", a, b)
			}
			require.Equal(t, toBig(a).Cmp(toBig(b)), a.Cmp(b), "cmp %s %s", a, b)
		}
		f, _ := new(big.Float).SetInt(toBig(a)).Float64()
		require.Equal(t, f, a.Float64(), a.String())
		v, ok := a.Uint64()
		require.Equal(t, a.Hi == 0, ok)
		require.Equal(t, a.Lo, v)
	}
}

func TestU128JSONIsExactDecimal(t *testing.T) {
	b, err := json.Marshal(struct{ V U128 }{maxU128})
	require.NoError(t, err)
	require.JSONEq(t, `{"V":"340282366920938463463374607431768211455"}`, string(b))
	var back struct{ V U128 }
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, maxU128, back.V)
}
