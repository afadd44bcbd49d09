package compare

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func figures(xs ...float64) []*float64 {
	out := make([]*float64, len(xs))
	for i, x := range xs {
		if x >= 0 {
			out[i] = &xs[i]
		}
	}
	return out
}

// TestThroughputFrom: the first window of five rounds, each with a figure,
// that meets SNIA's criterion; a round without a figure (-1 here) breaks a
// window; no figure at all means the rule does not apply.
func TestThroughputFrom(t *testing.T) {
	for _, c := range []struct {
		name string
		txn  []*float64
		k    int
		ok   bool
	}{
		{"steady from the start", figures(100, 101, 99, 100, 100, 100), 0, true},
		{"warm-up skipped", figures(40, 55, 70, 85, 100, 100, 100, 100, 100), 4, true},
		{"an edge round without a figure", figures(-1, 100, 100, 100, 100, 100, -1), 1, true},
		{"a gap breaks the window", figures(100, 100, -1, 100, 100, 100, 100, 100), 3, true},
		{"a load step every other round", figures(100, 50, 100, 50, 100, 50, 100, 50), -1, true},
		{"too few rounds", figures(100, 100, 100, 100), -1, true},
		{"no figures", figures(-1, -1, -1, -1, -1), -1, false},
		{"none", nil, -1, false},
	} {
		k, ok := throughputFrom(SNIA, c.txn)
		require.Equal(t, c.k, k, c.name)
		require.Equal(t, c.ok, ok, c.name)
	}
}

// TestWithoutInterval: a run whose throughput never settled keeps the
// estimate and loses the interval (never significant); otherwise the
// interval stands.
func TestWithoutInterval(t *testing.T) {
	iv := Interval{Est: -0.2, Lo: -0.3, Hi: -0.1, OK: true}
	require.Equal(t, iv, withoutInterval(iv, ""))
	got := withoutInterval(iv, "candidate throughput not steady")
	require.Equal(t, Interval{Est: -0.2, Why: "candidate throughput not steady"}, got)
	require.False(t, got.Significant())
	none := Interval{Est: 0.1, Why: "fewer than 2 batches of 3 rounds in a run"}
	require.Equal(t, none, withoutInterval(none, "candidate throughput not steady"))
}
