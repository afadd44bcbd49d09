package collector

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

type funcCollector func(context.Context, chan<- prometheus.Metric) error

func (f funcCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	return f(ctx, ch)
}

var testGaugeDesc = prometheus.NewDesc("walab_test_value", "A test value.", nil, nil)

func init() {
	// Registered disabled so they never appear in a real exporter's default set.
	Register("test_ok", false, func(Env) (Collector, error) {
		return funcCollector(func(_ context.Context, ch chan<- prometheus.Metric) error {
			ch <- prometheus.MustNewConstMetric(testGaugeDesc, prometheus.GaugeValue, 42)
			return nil
		}), nil
	})
	Register("test_fail", false, func(Env) (Collector, error) {
		return funcCollector(func(context.Context, chan<- prometheus.Metric) error { return errors.New("boom") }), nil
	})
	Register("test_panic", false, func(Env) (Collector, error) {
		return funcCollector(func(context.Context, chan<- prometheus.Metric) error { panic("bug") }), nil
	})
	Register("test_nodata", false, func(Env) (Collector, error) {
		return funcCollector(func(context.Context, chan<- prometheus.Metric) error { return ErrNoData }), nil
	})
	Register("test_badconfig", false, func(Env) (Collector, error) { return nil, errors.New("bad config") })
}

func TestSetReportsEachCollector(t *testing.T) {
	set, err := New(Env{}, "test_ok", "test_fail", "test_panic", "test_nodata")
	require.NoError(t, err)
	require.Equal(t, []string{"test_fail", "test_nodata", "test_ok", "test_panic"}, set.Enabled())
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(set))
	for name, want := range map[string]float64{"test_ok": 1, "test_fail": 0, "test_panic": 0, "test_nodata": 1} {
		v, ok := sample(t, reg, "walab_scrape_collector_success", map[string]string{"collector": name})
		require.True(t, ok, name)
		require.Equal(t, want, v, name)
		_, ok = sample(t, reg, "walab_scrape_collector_duration_seconds", map[string]string{"collector": name})
		require.True(t, ok, name)
	}
	v, ok := sample(t, reg, "walab_test_value", nil)
	require.True(t, ok, "a failing or panicking collector must not drop the others' metrics")
	require.Equal(t, 42.0, v)
}

func TestNewErrors(t *testing.T) {
	_, err := New(Env{}, "test_badconfig")
	require.ErrorContains(t, err, "collector test_badconfig: bad config")
	_, err = New(Env{}, "no_such_collector")
	require.ErrorContains(t, err, `unknown collector "no_such_collector"`)
	require.Error(t, SetEnabled("no_such_collector", true))
}

func TestFlags(t *testing.T) {
	app := kingpin.New("t", "")
	RegisterFlags(app)
	_, err := app.Parse([]string{"--collector.test_ok", "--no-collector.test_fail"})
	require.NoError(t, err)
	set, err := New(Env{})
	require.NoError(t, err)
	require.Contains(t, set.Enabled(), "test_ok")
	require.NotContains(t, set.Enabled(), "test_fail")
	require.NoError(t, SetEnabled("test_ok", false))
}

func TestRecoverDeviceKeepsTheProcessAlive(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer recoverDevice(logger, "nvme7")
		panic("label value is not valid UTF-8")
	}()
	<-done
	require.Contains(t, logs.String(), "device=nvme7")
	require.Equal(t, "ACME ? SSD", validLabel("ACME \xff\xfe SSD"))
}
