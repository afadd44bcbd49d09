package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare/comparetest"
)

// TestCompareNonFiniteCommand: a NAND round stored as +Inf and a host
// round stored as NaN make `walab compare` say NOT VALID (exit 3), name
// the rounds, and still write whole, parseable CSV and JSON.
func TestCompareNonFiniteCommand(t *testing.T) {
	t0 := time.Now().Add(-50 * time.Hour).Truncate(time.Minute).UTC()
	papi := comparetest.StartPrometheusURL(t, []comparetest.Run{
		{ID: "base", Scenario: "baseline", Start: t0, WA: append([]float64{2}, comparetest.RepeatWA(2.5, 12)...),
			BadNAND: map[int]float64{6: math.Inf(1)}},
		{ID: "cand", Scenario: "streams", Start: t0.Add(24 * time.Hour), WA: append([]float64{2}, comparetest.RepeatWA(2.25, 12)...),
			BadHost: map[int]float64{7: math.NaN()}},
	})
	dir := t.TempDir()
	csvPath, jsonPath := filepath.Join(dir, "wa.csv"), filepath.Join(dir, "wa.json")
	var out, errOut bytes.Buffer
	code := run([]string{"compare", "--prometheus.url=" + papi, "--baseline=base", "--candidate=cand",
		"--device=nvme0", "--lookback=72h", "--csv=" + csvPath, "--json=" + jsonPath}, &out, &errOut)
	require.Equal(t, 3, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	require.True(t, strings.HasPrefix(out.String(), "NOT VALID"), out.String())
	require.Contains(t, out.String(), "NAND counter increase is +Inf, not a finite number")
	require.Contains(t, out.String(), "host counter increase is NaN, not a finite number")
	require.NotContains(t, out.String(), "WA reduction")
	var js struct {
		Verdict struct {
			Valid bool `json:"valid"`
		} `json:"verdict"`
	}
	jb, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(jb, &js))
	require.False(t, js.Verdict.Valid)
	cb, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	rows, err := csv.NewReader(bytes.NewReader(cb)).ReadAll()
	require.NoError(t, err)
	for _, row := range rows[1:] {
		require.NotRegexp(t, `(?i)nan|inf`, strings.Join(row[3:6], ","), "figures of %v", row)
	}
}

// TestCompareFlagLimits: counts and durations that cannot mean anything
// are usage errors naming the flag, before any query.
func TestCompareFlagLimits(t *testing.T) {
	base := []string{"compare", "--baseline=b", "--candidate=c", "--prometheus.url=http://127.0.0.1:1"}
	for _, tt := range []struct{ flag, want string }{
		{"--last-hours=0", "--last-hours 0: want at least 1"},
		{"--last-hours=-1", "--last-hours -1: want at least 1"},
		{"--round=0", "--round 0s: want at least 1s"},
		{"--round=-1h", "--round -1h0m0s: want at least 1s"},
		{"--lookback=-1h", "--lookback -1h0m0s: want a positive duration"},
		{"--lookback=0", "--lookback 0s: want a positive duration"},
		{"--timeout=0", "--timeout 0s: want a positive duration"},
	} {
		var out, errOut bytes.Buffer
		require.Equal(t, 2, run(append(base, tt.flag), &out, &errOut), tt.flag)
		require.Contains(t, errOut.String(), tt.want, tt.flag)
	}
}

// TestCompareStoreErrorIsPlain: the store's error text reached stderr with
// its terminal escapes (clear screen, retitle the window): it is printed
// without control characters.
func TestCompareStoreErrorIsPlain(t *testing.T) {
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"boom\u001b[2J\u001b]0;pwned\u0007 after"}`)
	}))
	defer store.Close()
	var out, errOut bytes.Buffer
	code := run([]string{"compare", "--prometheus.url=" + store.URL, "--baseline=b", "--candidate=c"}, &out, &errOut)
	require.Equal(t, 1, code, errOut.String())
	require.Contains(t, errOut.String(), "boom[2J]0;pwned after")
	require.NotContains(t, errOut.String(), "\x1b")
	require.NotContains(t, errOut.String(), "\x07")
}
