package fleetsim

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func scrape(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	b, err := io.ReadAll(rec.Result().Body)
	require.NoError(t, err)
	return rec.Code, string(b)
}

// value is the sample of series (name and labels as exposed) in body.
func value(t *testing.T, body, series string) float64 {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(rest, 64)
			require.NoError(t, err, line)
			return v
		}
	}
	t.Fatalf("no series %s", series)
	return 0
}

var testConfig = Config{Seed: 7, Hosts: 3, DrivesPerHost: 2, Regressed: 2, RegressAt: time.Hour, RegressFactor: 1.5}

func TestDrivesFollowTheSeed(t *testing.T) {
	a, b := drives(testConfig), drives(testConfig)
	require.Equal(t, a, b)
	other := testConfig
	other.Seed = 8
	require.NotEqual(t, a, drives(other))
	regressed, models := 0, map[string]bool{}
	for _, d := range a {
		if d.Regressed {
			regressed++
		}
		models[d.Model+" "+d.Firmware] = true
	}
	require.Equal(t, testConfig.Regressed, regressed)
	require.Greater(t, len(models), 1, "models and firmware vary")
}

// TestFleetServesEachDrivesWA: every host's exporter reports each drive's
// own WA over the last simulated hour; after RegressAt the regressed drives'
// hourly WA is RegressFactor times their own, the others' unchanged.
func TestFleetServesEachDrivesWA(t *testing.T) {
	f, err := New(testConfig, t.TempDir(), t0, nil)
	require.NoError(t, err)
	defer f.Close()
	step := func(n int) {
		for range n {
			require.NoError(t, f.Advance(10*time.Minute))
		}
	}
	check := func(at time.Duration) {
		t.Helper()
		for _, d := range f.Drives() {
			code, body := scrape(t, f.Handler(), fmt.Sprintf("/hosts/%d/metrics", d.Host))
			require.Equal(t, http.StatusOK, code)
			want := d.WAAt(testConfig, at-time.Nanosecond)
			got := value(t, body, fmt.Sprintf(`walab_nvme_write_amplification{device=%q,window="1h"}`, d.Name()))
			require.InEpsilon(t, want, got, 0.001, "host %d %s (regressed %v)", d.Host, d.Name(), d.Regressed)
			_, nand := d.counters(testConfig, at)
			require.InDelta(t, float64(d.percentageUsed(nand))/100, value(t, body, fmt.Sprintf(`walab_nvme_percentage_used_ratio{device=%q}`, d.Name())), 1e-9)
			require.Contains(t, body, fmt.Sprintf(`firmware=%q,model=%q,serial=%q`, d.Firmware, d.Model, d.Serial))
		}
	}
	step(6)
	check(time.Hour)
	step(6)
	check(2 * time.Hour)
	require.Equal(t, t0.Add(2*time.Hour), f.Now())
}

func TestFleetRefuses(t *testing.T) {
	f, err := New(Config{Seed: 1, Hosts: 1, DrivesPerHost: 1}, t.TempDir(), t0, nil)
	require.NoError(t, err)
	defer f.Close()
	code, body := scrape(t, f.Handler(), "/hosts/1/metrics")
	require.Equal(t, http.StatusNotFound, code)
	require.Contains(t, body, "hosts are 0 to 0")
	require.ErrorContains(t, f.Advance(0), "positive")
	require.NoError(t, f.AdvanceTo(30*time.Minute))
	require.NoError(t, f.AdvanceTo(20*time.Minute), "an earlier time is no step")
	require.Equal(t, t0.Add(30*time.Minute), f.Now())
	for _, tc := range []struct {
		c   Config
		err string
	}{
		{Config{Hosts: 0, DrivesPerHost: 1}, "Hosts"},
		{Config{Hosts: 1, DrivesPerHost: 0}, "DrivesPerHost"},
		{Config{Hosts: 1, DrivesPerHost: 1, Regressed: 2, RegressFactor: 2}, "Regressed"},
		{Config{Hosts: 1, DrivesPerHost: 1, Regressed: 1, RegressFactor: 1}, "RegressFactor"},
	} {
		_, err := New(tc.c, t.TempDir(), t0, nil)
		require.ErrorContains(t, err, tc.err)
	}
}
