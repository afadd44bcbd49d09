package main

import (
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
