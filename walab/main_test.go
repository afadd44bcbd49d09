package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
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
		{"missing runs", []string{"compare"}, 2, "--baseline or --baseline-range is required"},
		{"id and range", []string{"compare", "--baseline=b", "--baseline-range=2026-01-01T00:00:00Z,2026-01-01T12:00:00Z", "--candidate=c"}, 2, "not both"},
		{"bad range", []string{"compare", "--baseline-range=yesterday", "--candidate=c"}, 2, "--baseline-range \"yesterday\": want START,END"},
		{"backwards range", []string{"compare", "--baseline=b", "--candidate-range=2026-01-02T00:00:00Z,2026-01-01T00:00:00Z"}, 2, "the end must be after the start"},
		{"bad steady window", []string{"compare", "--baseline=b", "--candidate=c", "--steady.window=1"}, 2, "steady-state window 1"},
		{"bad select", []string{"compare", "--baseline=b", "--candidate=c", "--select=best"}, 2, "enum value"},
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
	csvPath, pngPath, jsonPath := filepath.Join(dir, "wa.csv"), filepath.Join(dir, "wa.png"), filepath.Join(dir, "wa.json")
	var out, errOut bytes.Buffer
	code := run([]string{"compare", "--prometheus.url=" + papi, "--baseline=base", "--candidate=cand",
		"--device=nvme0", "--lookback=72h", "--select=last-nonzero", "--csv=" + csvPath, "--png=" + pngPath, "--json=" + jsonPath}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.True(t, strings.HasPrefix(out.String(), "VALID  WA -10.0% [-10.0, -10.0]"), out.String())

	var js struct {
		Verdict struct {
			Valid    bool                  `json:"valid"`
			WAChange struct{ Est float64 } `json:"wa_change"`
			Checks   []struct{ Name, Status string }
		} `json:"verdict"`
		Candidate struct {
			Compared []int `json:"compared"`
		} `json:"candidate"`
	}
	jb, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(jb, &js))
	require.True(t, js.Verdict.Valid)
	require.InDelta(t, -0.10, js.Verdict.WAChange.Est, 1e-9)
	require.NotEmpty(t, js.Verdict.Checks)
	require.Equal(t, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, js.Candidate.Compared)

	// The same files again: refused, never overwritten.
	before, _ := os.ReadFile(csvPath)
	code = run([]string{"compare", "--prometheus.url=" + papi, "--baseline=base", "--candidate=cand",
		"--device=nvme0", "--lookback=72h", "--csv=" + csvPath}, &out, &errOut)
	require.Equal(t, 2, code)
	require.Contains(t, errOut.String(), "--csv "+csvPath+": the file exists")
	after, _ := os.ReadFile(csvPath)
	require.Equal(t, before, after)

	// A time-range comparison of the same data: the candidate's first
	// 3 hours only, too short for a steady window: NOT VALID, exit 3, no
	// reduction printed.
	var out2 bytes.Buffer
	code = run([]string{"compare", "--prometheus.url=" + papi, "--baseline=base",
		"--candidate-range=" + t0.Add(24*time.Hour).Format(time.RFC3339) + "," + t0.Add(27*time.Hour).Format(time.RFC3339),
		"--device=nvme0", "--lookback=72h"}, &out2, &errOut)
	require.Equal(t, 3, code, errOut.String())
	require.True(t, strings.HasPrefix(out2.String(), "NOT VALID: candidate steady: WA never reached steady state"), out2.String())
	require.NotContains(t, out2.String(), "WA reduction")
	require.Contains(t, out.String(), "compared 12 hours (2..13): WA 2.50000")
	require.Contains(t, out.String(), "compared 12 hours (2..13): WA 2.25000")
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
