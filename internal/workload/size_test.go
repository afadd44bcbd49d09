package workload

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"16384": 16384, "16K": 16384, "16k": 16384, "4G": 4 << 30, "150G": 150 << 30, "2M": 2 << 20, "1T": 1 << 40, "512b": 512, "0": 0} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "G", "1.5G", "-1", "16KB", "9999999999999T"} {
		_, err := ParseSize(bad)
		require.Error(t, err, bad)
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"16K", "4G", "1T", "", "-", "9223372036854775807", "8796093022208T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && n < 0 {
			t.Fatalf("%q gave %d", s, n)
		}
	})
}
