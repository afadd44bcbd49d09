package cliflag

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFloat(t *testing.T) {
	var v float64 = 7
	f := &Float{name: "--share", p: &v, lo: 0, hi: 1}
	for _, bad := range []string{"NaN", "nan", "Inf", "+Inf", "-inf", "infinity", "1.5", "-0.1", "x", "", "1e400"} {
		require.Error(t, f.Set(bad), bad)
		require.Equal(t, 7.0, v, "a refused value leaves the flag as it was: %s", bad)
	}
	require.ErrorContains(t, f.Set("NaN"), "--share: NaN is not a finite number")
	require.NoError(t, f.Set("0.25"))
	require.Equal(t, 0.25, v)
	require.Equal(t, "0.25", f.String())
	open := &Float{p: &v, lo: 0, hi: math.Inf(1)}
	require.NoError(t, open.Set("1e300"))
	require.ErrorContains(t, open.Set("-1"), "outside 0..")
	require.ErrorContains(t, open.Set("NaN"), "not a finite number")
}

func TestInt(t *testing.T) {
	n := 3
	f := &Int{name: "--batch", p: &n, lo: 0, hi: 10}
	for _, bad := range []string{"-1", "11", "1.5", "NaN", ""} {
		require.Error(t, f.Set(bad), bad)
		require.Equal(t, 3, n)
	}
	require.ErrorContains(t, f.Set("-1"), "--batch: -1 is outside 0..10")
	require.NoError(t, f.Set("0"))
	require.Equal(t, "0", f.String())
}
