package compare

import (
	"context"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
)

func samples(t0 time.Time, step time.Duration, vs ...float64) []model.SamplePair {
	out := make([]model.SamplePair, len(vs))
	for i, v := range vs {
		out[i] = model.SamplePair{Timestamp: model.TimeFromUnixNano(t0.Add(time.Duration(i) * step).UnixNano()), Value: model.SampleValue(v)}
	}
	return out
}

// TestCumulativeRounds: adjacent rounds split a counter's increase exactly
// (interpolated at bounds between samples, never extrapolated), a reset
// is undone, and a round the series covers only partly has no figure.
func TestCumulativeRounds(t *testing.T) {
	t0 := time.Unix(1000, 0)
	// 1 s samples offset by 0.5 s from the 5 s bounds; a reset at 7.5 s.
	c := newCumulative(samples(t0.Add(500*time.Millisecond), time.Second, 0, 10, 20, 30, 40, 50, 60, 70, 5, 15, 25, 35, 45))
	gap := maxGap(5*time.Second, c)
	inc := func(a, b float64) (float64, bool) {
		return c.increase(t0.Add(time.Duration(a*float64(time.Second))), t0.Add(time.Duration(b*float64(time.Second))), gap)
	}
	x, ok := inc(1, 6)
	require.True(t, ok)
	require.InDelta(t, 50, x, 1e-9)
	y, ok := inc(6, 11)
	require.True(t, ok)
	require.InDelta(t, 45, y, 1e-9, "70 -> 5 is a reset: +5, not -65")
	whole, ok := inc(1, 11)
	require.True(t, ok)
	require.InDelta(t, x+y, whole, 1e-9, "adjacent rounds add up to their union")
	_, ok = inc(0, 5)
	require.False(t, ok, "starts before the first sample: partial")
	_, ok = inc(9, 14)
	require.False(t, ok, "ends after the last sample: partial")
	z, ok := inc(20, 25)
	require.True(t, ok)
	require.Zero(t, z, "the series did not exist then")

	holey := newCumulative(samples(t0, time.Second, 0, 1, 2, 3))
	holey.t[3] = holey.t[2].Add(10 * time.Second) // a 10 s gap in 5 s rounds
	_, ok = holey.increase(t0.Add(time.Second), t0.Add(6*time.Second), maxGap(5*time.Second, holey))
	require.False(t, ok, "a bound in a gap is not interpolated")
}

func TestBucketQuantile(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	byLE := map[string][]*float64{"0.01": {f(50)}, "0.1": {f(90)}, "1": {f(100)}, "+Inf": {f(100)}}
	q := bucketQuantile(0.25, byLE, 0)
	require.NotNil(t, q)
	require.InDelta(t, 0.005, *q, 1e-12) // rank 25 of 50 in [0, 0.01]
	q = bucketQuantile(0.95, byLE, 0)
	require.InDelta(t, 0.1+0.9*0.5, *q, 1e-12) // rank 95: halfway through (0.1, 1]
	byLE["+Inf"] = []*float64{f(200)}
	q = bucketQuantile(0.99, byLE, 0)
	require.InDelta(t, 1, *q, 1e-12, "rank in +Inf: the highest finite bound")
	require.Nil(t, bucketQuantile(0.99, map[string][]*float64{"0.1": {f(1)}, "+Inf": {f(0)}}, 0), "no observations")
	require.Nil(t, bucketQuantile(0.99, map[string][]*float64{"0.1": {f(1)}, "+Inf": {nil}}, 0), "partial round")
	require.Nil(t, bucketQuantile(0.99, map[string][]*float64{"0.1": {f(1)}}, 0), "no +Inf bucket")
}

// matrixAPI answers every instant query with one matrix.
type matrixAPI struct {
	v1.API
	m model.Matrix
}

func (a matrixAPI) Query(context.Context, string, time.Time, ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	return a.m, nil, nil, nil
}

// TestRoundIncreasesAbsent: rounds after the counters' last sample are
// absent (nil), not 0; a round one series covers while another has not
// started yet counts the one that was there.
func TestRoundIncreasesAbsent(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := &model.SampleStream{Metric: model.Metric{"type": "a"}, Values: samples(t0, time.Second, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)}
	b := &model.SampleStream{Metric: model.Metric{"type": "b"}, Values: samples(t0.Add(6*time.Second), time.Second, 0, 2, 4, 6, 8)}
	src := Source{API: matrixAPI{m: model.Matrix{a, b}}}
	bs := []bound{{t0, t0.Add(5 * time.Second)}, {t0.Add(5 * time.Second), t0.Add(10 * time.Second)}, {t0.Add(10 * time.Second), t0.Add(15 * time.Second)}}
	got, err := src.roundIncreases(context.Background(), "x", "", bs)
	require.NoError(t, err)
	require.NotNil(t, got[""][0])
	require.InDelta(t, 5, *got[""][0], 1e-9, "b had not started: a alone")
	require.Nil(t, got[""][1], "b started inside the round: partial")
	require.Nil(t, got[""][2], "after both series ended: absent, not 0")
}

// TestOutsideLoad: rounds before loadgen's terminals were active, or past
// their last active sample (the drain, run_info's last scrapes), are
// marked; a window without the gauge marks nothing.
func TestOutsideLoad(t *testing.T) {
	t0 := time.Unix(1000, 0)
	act := &model.SampleStream{Metric: model.Metric{"target": "m1"}, Values: samples(t0, time.Second, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0)}
	src := Source{API: matrixAPI{m: model.Matrix{act}}}
	bs := []bound{{t0, t0.Add(4 * time.Second)}, {t0.Add(4 * time.Second), t0.Add(8 * time.Second)}, {t0.Add(8 * time.Second), t0.Add(12 * time.Second)}, {t0.Add(12 * time.Second), t0.Add(16 * time.Second)}}
	got, err := src.outsideLoad(context.Background(), bs, "")
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, false, true}, got)
	none, err := Source{API: matrixAPI{}}.outsideLoad(context.Background(), bs, "")
	require.NoError(t, err)
	require.Equal(t, []bool{false, false, false, false}, none)
}
