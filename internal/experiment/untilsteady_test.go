package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/state"
)

// untilSteadySim is a simulated drive under its own synthetic MySQL mix
// (the lab's drive, walab lab's exporter config): it turns its 256 MiB
// over about twice a second, so its WA settles in seconds; the exporter
// refreshes the drive's counters every few seconds, so a 1-s round
// without a change adds no WA and a window of 4 takes about 20 s.
const untilSteadySim = `sim:
  name: nvmesim7
  capacity: 256MiB
  scale: 1
  spare_factor: 0.1
  block_pages: 64
  rate: 64MiB
  speed_up: 8
  tick: 0s
  seed: 3
  workload:
    name: mysql
`

// untilSteadyRun executes a one-run plan whose command would run for 10
// minutes, with until_steady's given drift and max, on the simulated drive,
// and returns the run's record.
func untilSteadyRun(t *testing.T, drift, max string) *state.RunRecord {
	t.Helper()
	runs := untilSteadyRuns(t, fmt.Sprintf(`
  - name: base
    command: sleep 600
    until_steady: {window: 4, drift: %s, max: %s}
`, drift, max))
	require.Len(t, runs, 1)
	return &runs[0]
}

// untilSteadyRuns executes a plan of the given runs (YAML list items) in
// 1-s rounds on the simulated drive and returns their records.
func untilSteadyRuns(t *testing.T, runs string) []state.RunRecord {
	t.Helper()
	sim := exporterServer(t, untilSteadySim, "")
	raw := fmt.Sprintf("name: steady\nexporter: http://%s\ndevice: nvmesim7\nround: 1s\nruns:%s", sim, runs)
	e, err := create([]byte(raw), filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	e.PollEvery = 100e6 // 0.1 s: the watch sees each round's end promptly
	require.NoError(t, e.Execute(context.Background()))
	return e.State().Runs
}

// TestUntilSteadyEndsEarly: a run whose command would last ten minutes
// ends once its WA per round held for the window (4 rounds, drift within
// 3 %), long before max, and its record says so.
func TestUntilSteadyEndsEarly(t *testing.T) {
	rec := untilSteadyRun(t, "3%", "300s")
	t.Log(rec.UntilSteady, rec.End.Sub(rec.Start))
	require.True(t, strings.HasPrefix(rec.UntilSteady, "WA held for 4 rounds of 1s"), rec.UntilSteady)
	require.Contains(t, rec.UntilSteady, "flat:")
	require.Less(t, rec.End.Sub(rec.Start).Seconds(), 300.0, "ended by the rule, not by max")
}

// TestUntilSteadyNotSteadyAtMax: with a drift limit no drive meets
// (0.001 % of the mean over 4 rounds), the run ends at max and its record
// says "not steady" with the last window's WA and trend.
func TestUntilSteadyNotSteadyAtMax(t *testing.T) {
	rec := untilSteadyRun(t, "0.001%", "35s")
	t.Log(rec.UntilSteady)
	require.True(t, strings.HasPrefix(rec.UntilSteady, "not steady by the end (until_steady max 35s): the last 4 rounds' WA"), rec.UntilSteady)
	require.GreaterOrEqual(t, rec.End.Sub(rec.Start).Seconds(), 35.0, "ran to max")
}

// TestUntilSteadyLastsTheEarlierRunsRounds: compare reads both arms over
// the same round numbers, so a run that would hold in about 20 s lasts at
// least the rounds of the until_steady run before it (here one that ran to
// its max of 40 s), then ends once its WA holds.
func TestUntilSteadyLastsTheEarlierRunsRounds(t *testing.T) {
	runs := untilSteadyRuns(t, `
  - name: base
    command: sleep 600
    until_steady: {window: 4, drift: 0.001%, max: 40s}
  - name: cand
    command: sleep 600
    until_steady: {window: 4, drift: 3%, max: 300s}
`)
	require.Len(t, runs, 2)
	t.Log(runs[0].UntilSteady, "|", runs[1].UntilSteady, runs[1].End.Sub(runs[1].Start))
	require.True(t, strings.HasPrefix(runs[0].UntilSteady, "not steady"), runs[0].UntilSteady)
	require.True(t, strings.HasPrefix(runs[1].UntilSteady, "WA held for 4 rounds of 1s"), runs[1].UntilSteady)
	require.GreaterOrEqual(t, runs[1].End.Sub(runs[1].Start), runs[0].End.Sub(runs[0].Start).Truncate(time.Second),
		"the later run lasts the earlier one's rounds")
}
