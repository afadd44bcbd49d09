package main

import (
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
)

// TestCompareFlagDefaults: with no tuning flag, the options walab compare
// hands the library are compare.DefaultOptions (plus the runs, the device
// and the search window).
func TestCompareFlagDefaults(t *testing.T) {
	app := kingpin.New("walab", "")
	c := defineCompare(app)
	_, err := app.Parse([]string{"compare", "--baseline=b", "--candidate=c"})
	require.NoError(t, err)
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	got, err := c.options(now)
	require.NoError(t, err)
	want := compare.DefaultOptions()
	want.Baseline, want.Candidate, want.Device = "b", "c", "nvme0"
	want.From, want.To = now.Add(-720*time.Hour), now
	require.Equal(t, want, got)
	require.Equal(t, 2*time.Minute, c.timeout)
	require.Equal(t, "http://127.0.0.1:9090", c.promURL)
}

// TestCompareFlagsRefuseNonFinite: NaN and infinities passed every float
// flag (a NaN tolerance makes every check pass: NaN > x is false), and a
// negative tolerance or batch was taken. Each is a usage error naming the
// flag, exit 2, before any query.
func TestCompareFlagsRefuseNonFinite(t *testing.T) {
	for _, arg := range []string{"--rate-tolerance=NaN", "--rate-tolerance=Inf", "--fill-tolerance=-1", "--fill-tolerance=nan",
		"--steady.excursion=+Inf", "--steady.slope=NaN", "--placement-min-share=NaN", "--baseline-max-share=2", "--batch=-1"} {
		var out, errOut strings.Builder
		code := run([]string{"compare", "--baseline=b", "--candidate=c", "--prometheus.url=http://127.0.0.1:1", arg}, &out, &errOut)
		require.Equal(t, 2, code, "%s: %s", arg, errOut.String())
		name, _, _ := strings.Cut(arg, "=")
		require.Contains(t, errOut.String(), name, arg)
		require.Empty(t, out.String(), arg)
	}
}

// TestCompareZeroTolerances: `--fill-tolerance=0` became 0.10 in the
// library, which read a zero tolerance as "unset". Each tolerance flag
// given as 0 reaches the library as a given 0, which it keeps.
func TestCompareZeroTolerances(t *testing.T) {
	for _, tc := range []struct {
		flag string
		got  func(compare.CheckOptions) *float64
	}{
		{"--fill-tolerance", func(c compare.CheckOptions) *float64 { return c.FillTolerance }},
		{"--rate-tolerance", func(c compare.CheckOptions) *float64 { return c.RateTolerance }},
		{"--placement-min-share", func(c compare.CheckOptions) *float64 { return c.PlacementMinShare }},
		{"--baseline-max-share", func(c compare.CheckOptions) *float64 { return c.BaselineMaxShare }},
	} {
		app := kingpin.New("walab", "")
		c := defineCompare(app)
		_, err := app.Parse([]string{"compare", "--baseline=b", "--candidate=c", tc.flag + "=0"})
		require.NoError(t, err)
		o, err := c.options(time.Now())
		require.NoError(t, err)
		require.NotNil(t, tc.got(o.Checks), tc.flag)
		require.Zero(t, *tc.got(o.Checks), tc.flag)
		require.Zero(t, *tc.got(compare.ResolvedChecks(o.Checks)), "%s: the library keeps a given 0", tc.flag)
	}
}
