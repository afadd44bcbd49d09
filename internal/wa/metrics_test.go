package wa

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/walab/walab/internal/golden"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/config"
)

// metricNames is every family the sampler exports (docs/metrics.md).
var metricNames = []string{
	"walab_nvme_write_amplification", "walab_nvme_wa_window_seconds", "walab_nvme_wa_resets_total",
	"walab_nvme_wa_glitches_total", "walab_nvme_run_start_timestamp_seconds", "walab_nvme_wa_samples", "walab_nvme_wa_last_sample_timestamp_seconds",
	"walab_nvme_wa_state_save_errors_total", "walab_nvme_wa_state_last_save_timestamp_seconds",
}

func TestMetricsGolden(t *testing.T) {
	tests := []struct {
		name   string
		golden string
		build  func(t *testing.T, s *Sampler, r *fakeReader)
	}{
		{
			name:   "two hours, one idle device, one reset device",
			golden: "metrics_two_hours.golden",
			build: func(t *testing.T, s *Sampler, r *fakeReader) {
				ctx := context.Background()
				r.set("nvme0", 0, 0)
				r.set("nvme1", 500*mib, 600*mib) // idle: no host writes ever
				r.set("nvme2", 900*mib, 900*mib)
				require.NoError(t, s.Sample(ctx, t0))
				for i := 1; i <= 120; i++ {
					r.set("nvme0", uint64(i)*10*mib, uint64(i)*25*mib)
					r.set("nvme1", 500*mib, 600*mib+uint64(i)*mib)
					r.set("nvme2", 900*mib+uint64(i)*mib, 900*mib+uint64(i)*2*mib)
					if i >= 100 { // swapped for a new drive at minute 100, WA 3 since
						r.set("nvme2", uint64(i-99)*mib, uint64(3*(i-99)-2)*mib)
					}
					require.NoError(t, s.Sample(ctx, t0.Add(time.Duration(i)*time.Minute)))
				}
			},
		},
		{
			name:   "no devices read yet",
			golden: "metrics_empty.golden",
			build:  func(*testing.T, *Sampler, *fakeReader) {},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeReader{}
			s, _ := newTestSampler(t, r, Options{})
			tc.build(t, s, r)
			got, err := testutil.CollectAndFormat(s, expfmt.TypeTextPlain, metricNames...)
			require.NoError(t, err)
			golden.Assert(t, filepath.Join("testdata", tc.golden), got)

			// The collector must also pass the registry's consistency checks.
			reg := prometheus.NewPedanticRegistry()
			require.NoError(t, reg.Register(s))
			_, err = reg.Gather()
			require.NoError(t, err)
		})
	}
}

func TestConfigSection(t *testing.T) {
	off, on := false, true
	tests := []struct {
		name string
		yaml string
		want Config
		opts Options // Options() result, minus Reader and Logger
		err  string
	}{
		// Issue 33: the default was a shared /var/lib/walab/wa-state.bin, so a
		// throw-away exporter adopted another instance's history.
		{"absent section: history in memory only", "", Config{}, Options{}, ""},
		{"persist without a state file: in memory", "wa:\n  persist: true\n", Config{Persist: &on}, Options{}, ""},
		{
			"everything set",
			"wa:\n  interval: 30s\n  windows: [15m, 1h, 24h]\n  state_file: /tmp/x.state\n  persist_every: 5\n",
			Config{Interval: 30 * time.Second, Windows: []time.Duration{15 * time.Minute, time.Hour, 24 * time.Hour}, StateFile: "/tmp/x.state", PersistEvery: 5},
			Options{Interval: 30 * time.Second, Windows: []time.Duration{15 * time.Minute, time.Hour, 24 * time.Hour}, StatePath: "/tmp/x.state", PersistEvery: 5},
			"",
		},
		{"persistence off", "wa:\n  persist: false\n", Config{Persist: &off}, Options{}, ""},
		{"unknown key", "wa:\n  intervall: 30s\n", Config{}, Options{}, "intervall"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := config.Parse([]byte(tc.yaml))
			require.NoError(t, err)
			var c Config
			err = f.Decode("wa", &c)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, c)
			o := c.Options(nil, nil)
			require.Equal(t, tc.opts, o)
		})
	}
}
