package runner

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHistogramPercentiles(t *testing.T) {
	var h histogram
	for i := 1; i <= 1000; i++ {
		h.observe(float64(i) / 10) // 0.1 .. 100 ms
	}
	var s histSnap
	s.add(&h)
	require.Equal(t, uint64(1000), s.total())
	for _, tc := range []struct{ p, want float64 }{{50, 50}, {95, 95}, {99, 99}, {100, 100}} {
		got := s.percentile(tc.p)
		// Buckets are ~1.8% wide: the reported bound is at or just above the value.
		require.GreaterOrEqual(t, got, tc.want*0.999, "p%v", tc.p)
		require.LessOrEqual(t, got, tc.want*1.02, "p%v", tc.p)
	}
	var empty histSnap
	require.Zero(t, empty.percentile(95))
	require.Equal(t, 0, bucketOf(0))
	require.Equal(t, histBuckets-1, bucketOf(1e9))
	d := s.sub(&empty)
	require.Equal(t, s, d)
}
