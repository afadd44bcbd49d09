package main

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare/comparetest"
)

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing runs", []string{"compare"}, 2, "required flag"},
		{"unknown command", []string{"frobnicate"}, 2, "expected command"},
		// Nothing listens on port 1 of loopback: a clear error, exit 1.
		{"no prometheus", []string{"compare", "--baseline=b", "--candidate=c", "--prometheus.url=http://127.0.0.1:1", "--timeout=5s"}, 1, "find run b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			require.Equal(t, tt.code, run(tt.args, &out, &errOut), errOut.String())
			require.Contains(t, errOut.String(), tt.want)
		})
	}
}

// TestCompareCommand runs `walab compare` against a real Prometheus holding
// a baseline and a streams run a day apart, and reads its CSV and PNG back.
func TestCompareCommand(t *testing.T) {
	t0 := time.Now().Add(-50 * time.Hour).Truncate(time.Minute).UTC()
	papi := comparetest.StartPrometheusURL(t, []comparetest.Run{
		{ID: "base", Scenario: "baseline", Start: t0, WA: append([]float64{2}, comparetest.RepeatWA(2.5, 12)...)},
		{ID: "cand", Scenario: "streams", Start: t0.Add(24 * time.Hour), WA: append([]float64{2}, comparetest.RepeatWA(2.25, 12)...)},
	})
	dir := t.TempDir()
	csvPath, pngPath := filepath.Join(dir, "wa.csv"), filepath.Join(dir, "wa.png")
	var out, errOut bytes.Buffer
	code := run([]string{"compare", "--prometheus.url=" + papi, "--baseline=base", "--candidate=cand",
		"--device=nvme0", "--lookback=72h", "--csv=" + csvPath, "--png=" + pngPath}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Contains(t, out.String(), "last 12 non-zero hours (2..13): WA 2.50000")
	require.Contains(t, out.String(), "last 12 non-zero hours (2..13): WA 2.25000")
	require.Contains(t, out.String(), "WA reduction (baseline - candidate) / baseline: 10.00%")

	f, err := os.Open(csvPath)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+13+13)
	require.Equal(t, []string{"cand", "streams", "13", "135.000", "60.000", "2.25000", ""}, rows[len(rows)-1])

	pf, err := os.Open(pngPath)
	require.NoError(t, err)
	defer pf.Close()
	_, err = png.Decode(pf)
	require.NoError(t, err)
}
