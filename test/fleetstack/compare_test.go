package fleetstack

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/fleetsim"
)

// buildWalab builds the walab command in the background while the stack
// runs; the returned function, called once, waits for it and returns the
// binary.
func buildWalab(t *testing.T) func() string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "walab")
	done := make(chan error, 1)
	go func() {
		out, err := exec.Command("go", "build", "-o", bin, "../../walab").CombinedOutput()
		if err != nil {
			err = fmt.Errorf("go build ./walab: %w\n%s", err, out)
		}
		done <- err
	}()
	return func() string {
		require.NoError(t, <-done)
		return bin
	}
}

// verdict is the part of `walab compare --json` the test reads.
type verdict struct {
	Verdict struct {
		Valid   bool     `json:"valid"`
		Reasons []string `json:"reasons"`
		WA      struct {
			Est, Lo, Hi *float64
			OK          bool
		} `json:"wa_change"`
	} `json:"verdict"`
	Baseline  struct{ Compared []int } `json:"baseline"`
	Candidate struct{ Compared []int } `json:"candidate"`
}

// compareDrive runs `walab compare` on one simulated drive through
// VictoriaMetrics' Prometheus API, the baseline and candidate given as
// time ranges in rounds of 10 s (a sixth of a simulated hour), and returns
// its exit code and JSON verdict.
func compareDrive(t *testing.T, walab, vm string, d fleetsim.Drive, runs [2][2]time.Time) (int, verdict) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "verdict.json")
	span := func(r [2]time.Time) string {
		return r[0].UTC().Format(time.RFC3339) + "," + r[1].UTC().Format(time.RFC3339)
	}
	cmd := exec.Command(walab, "compare", "--prometheus.url="+vm,
		"--baseline-range="+span(runs[0]), "--candidate-range="+span(runs[1]),
		"--instance="+fmt.Sprintf("db%05d", d.Host), "--device="+d.Name(),
		"--round=10s", "--last-hours=6", "--placement-check=off", "--json="+out, "--timeout=2m")
	text, err := cmd.CombinedOutput()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	b, err := os.ReadFile(out)
	require.NoError(t, err, "walab compare wrote no JSON (exit %d):\n%s", code, text)
	var v verdict
	require.NoError(t, json.Unmarshal(b, &v))
	t.Logf("walab compare db%05d %s (regressed %v): exit %d\n%s", d.Host, d.Name(), d.Regressed, code, text)
	return code, v
}

// compared is a drive's compare run: its exit code and verdict.
type compared struct {
	Code    int
	Verdict verdict
}

// compareVerdicts runs walab compare through the Prometheus API at api on
// the first regressed drive and the first unchanged one, in that order.
func compareVerdicts(t *testing.T, walab, api string, drives []fleetsim.Drive, runs [2][2]time.Time) [2]compared {
	t.Helper()
	var out [2]compared
	found := [2]bool{}
	for _, d := range drives {
		i := 1
		if d.Regressed {
			i = 0
		}
		if !found[i] {
			found[i] = true
			out[i].Code, out[i].Verdict = compareDrive(t, walab, api, d, runs)
		}
	}
	require.Equal(t, [2]bool{true, true}, found, "a regressed drive and an unchanged one")
	return out
}

// checkCompare: the hours of a regressed drive before its regression
// (baseline) and after it (candidate) compare VALID with WA up by the
// regression's factor, its 95% interval above 0; an unchanged drive's same
// hours compare VALID with no change. It returns both verdicts.
func checkCompare(t *testing.T, walab, api string, drives []fleetsim.Drive, factor float64, runs [2][2]time.Time) [2]compared {
	t.Helper()
	for _, r := range runs {
		require.GreaterOrEqual(t, r[1].Sub(r[0]), 70*time.Second, "runs %v: too short for 6 rounds of 10 s and a steady window", runs)
	}
	out := compareVerdicts(t, walab, api, drives, runs)
	v := out[0].Verdict
	require.Equal(t, 0, out[0].Code, "VALID: %v", v.Verdict.Reasons)
	require.True(t, v.Verdict.Valid)
	wa := v.Verdict.WA
	require.True(t, wa.OK && wa.Est != nil && wa.Lo != nil && wa.Hi != nil, "WA change has an interval: %+v", wa)
	require.InDelta(t, factor-1, *wa.Est, 0.01, "WA change of the regressed drive")
	require.Greater(t, *wa.Lo, 0.0, "the rise is significant")
	require.Len(t, v.Candidate.Compared, 6)

	v = out[1].Verdict
	require.Equal(t, 0, out[1].Code, "VALID: %v", v.Verdict.Reasons)
	require.True(t, v.Verdict.WA.OK && v.Verdict.WA.Est != nil)
	require.InDelta(t, 0, *v.Verdict.WA.Est, 0.01, "WA change of a drive that did not regress")
	return out
}

// sameVerdicts: compare through Thanos' querier says what it says through
// VictoriaMetrics: the exit code, validity, reasons, rounds compared, and
// the WA change and its interval within 0.001 (the stores' engines may
// round differently).
func sameVerdicts(t *testing.T, vm, thanos [2]compared) {
	t.Helper()
	for i := range vm {
		a, b := vm[i], thanos[i]
		require.Equal(t, a.Code, b.Code)
		require.Equal(t, a.Verdict.Verdict.Valid, b.Verdict.Verdict.Valid)
		require.Equal(t, a.Verdict.Verdict.Reasons, b.Verdict.Verdict.Reasons)
		require.Equal(t, a.Verdict.Baseline, b.Verdict.Baseline)
		require.Equal(t, a.Verdict.Candidate, b.Verdict.Candidate)
		wa, wb := a.Verdict.Verdict.WA, b.Verdict.Verdict.WA
		require.Equal(t, wa.OK, wb.OK)
		for _, p := range [][2]*float64{{wa.Est, wb.Est}, {wa.Lo, wb.Lo}, {wa.Hi, wb.Hi}} {
			require.Equal(t, p[0] == nil, p[1] == nil)
			if p[0] != nil {
				require.InDelta(t, *p[0], *p[1], 0.001, "WA change through Thanos against VictoriaMetrics")
			}
		}
	}
}
