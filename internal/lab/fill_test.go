package lab

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment/plan"
)

const testCapacity = 640 * mib

// constantFill is a drive whose fill never moves.
func constantFill(f float64) func(context.Context) (float64, float64, error) {
	return func(context.Context) (float64, float64, error) { return f, testCapacity, nil }
}

func runItem(id string, d time.Duration) plan.Item {
	return plan.Item{ID: id, Phase: plan.PhaseRun, Run: &plan.Run{Name: id}, Expected: d}
}

// TestGrowthRefusesARunThatWouldOutgrowTheDrive: a run before grew the
// database 154 MiB in 420 s (issue 55's lab); at that rate a 900 s run
// needs 330 MiB, more than the 141 MiB below maxFill at 75 % fill, and is
// refused before it starts; a 100 s run (37 MiB) starts.
func TestGrowthRefusesARunThatWouldOutgrowTheDrive(t *testing.T) {
	g := &growth{read: constantFill(0.75), round: 10 * time.Second, every: time.Hour, stop: func(error) {}}
	t0 := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	g.runs = []*runFill{{name: "baseline/r1/run", start: t0, expected: 420 * time.Second, capacity: testCapacity,
		samples: []fillSample{{t0, 0.75}, {t0.Add(420 * time.Second), 0.75 + 154.0/640}}}}
	err := g.beforeRun(context.Background(), runItem("streams/r1/run", 900*time.Second))
	require.ErrorContains(t, err, "run streams/r1/run refused: it would outgrow the drive. The database grew 0.37 MiB/s in run baseline/r1/run")
	require.ErrorContains(t, err, "that is 330 MiB, and the drive has 141 MiB left below its 97% limit (fill 75.0% now)")
	require.ErrorContains(t, err, "loadgen tpcc --keep-size")
	require.Len(t, g.runs, 1, "a refused run is not followed")

	require.NoError(t, g.beforeRun(context.Background(), runItem("streams/r1/run", 100*time.Second)))
	g.close()
	require.Len(t, g.runs, 2)
}

// TestGrowthNoRateNoRefusal: without a measured rate (the first run), or
// when the database did not grow, nothing is refused.
func TestGrowthNoRateNoRefusal(t *testing.T) {
	g := &growth{read: constantFill(0.96), round: time.Second, every: time.Hour, stop: func(error) {}}
	require.NoError(t, g.beforeRun(context.Background(), runItem("a/r1/run", 24*time.Hour)))
	g.close()
	require.NoError(t, g.beforeRun(context.Background(), runItem("b/r1/run", 24*time.Hour)))
	g.close()
}

// TestGrowthStopsARunOnCourseToFill: the first run has no rate before it;
// once its first round has passed, a fill that keeps rising projects past
// maxFill before the run's end and the experiment is stopped with why. A
// fill that holds is not stopped.
func TestGrowthStopsARunOnCourseToFill(t *testing.T) {
	var mu sync.Mutex
	fill := 0.75
	rising := func(context.Context) (float64, float64, error) {
		mu.Lock()
		defer mu.Unlock()
		fill += 0.001
		return fill, testCapacity, nil
	}
	stopped := make(chan error, 1)
	g := &growth{read: rising, round: 20 * time.Millisecond, every: time.Millisecond,
		stop: func(err error) { stopped <- err }}
	require.NoError(t, g.beforeRun(context.Background(), runItem("baseline/r1/run", time.Hour)))
	err := <-stopped
	g.close()
	require.ErrorContains(t, err, "run baseline/r1/run stopped after")
	require.ErrorContains(t, err, "so the drive would pass its 97% limit")

	held := &growth{read: constantFill(0.75), round: 2 * time.Millisecond, every: time.Millisecond,
		stop: func(err error) { t.Errorf("stopped a run whose fill holds: %v", err) }}
	require.NoError(t, held.beforeRun(context.Background(), runItem("baseline/r1/run", time.Hour)))
	for {
		held.mu.Lock()
		n := len(held.runs[0].samples)
		held.mu.Unlock()
		if n > 20 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	held.close()
}

// TestFillTable: WA per round from the verdict's tables beside the fill
// sampled at each round's end; a round without WA or fill shows "-".
func TestFillTable(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	g := &growth{every: time.Second}
	g.runs = []*runFill{
		{name: "baseline", samples: []fillSample{{t0.Add(10 * time.Second), 0.751}, {t0.Add(20 * time.Second), 0.753}}},
		{name: "streams", samples: []fillSample{{t0.Add(110 * time.Second), 0.752}}},
	}
	res := &compare.Result{Runs: [2]compare.Run{{ID: "baseline"}, {ID: "streams"}}}
	res.Tables[0] = []compare.Hour{{Hour: 1, At: t0.Add(10 * time.Second), NANDBytes: 100, HostBytes: 100},
		{Hour: 2, At: t0.Add(20 * time.Second), NANDBytes: 125, HostBytes: 100}}
	res.Tables[1] = []compare.Hour{{Hour: 1, At: t0.Add(110 * time.Second), NANDBytes: 110, HostBytes: 100},
		{Hour: 2, At: t0.Add(120 * time.Second), Missing: "no NAND data"}}
	var b strings.Builder
	g.writeTable(&b, res)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 4)
	require.Equal(t, []string{"1", "1.00", "75.1%", "1.10", "75.2%"}, strings.Fields(lines[2]))
	require.Equal(t, []string{"2", "1.25", "75.3%", "-", "-"}, strings.Fields(lines[3]))
}

// TestGrowthWarmupNotCounted: a run whose fill rises in its first round
// (InnoDB extending its files) and then swings with the binary logs around
// a level (issue 55's lab with --keep-size) has no growth to project, so
// a 12 h run after it starts; the same first round followed by a steady
// climb is refused.
func TestGrowthWarmupNotCounted(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	run := func(after func(i int) float64) *runFill {
		r := &runFill{name: "baseline/r1/run", start: t0, expected: 20 * time.Minute, capacity: testCapacity}
		for i := 0; i <= 1200; i++ {
			f := 0.75 + 0.02*float64(min(i, 60))/60
			if i > 60 {
				f = after(i)
			}
			r.samples = append(r.samples, fillSample{t0.Add(time.Duration(i) * time.Second), f})
		}
		return r
	}
	swinging := func(i int) float64 { return 0.77 + 0.005*float64(i%50-25)/25 }
	climbing := func(i int) float64 { return 0.77 + 0.0001*float64(i-60) }

	g := &growth{read: constantFill(0.75), round: time.Minute, every: time.Hour, stop: func(error) {}}
	g.runs = []*runFill{run(swinging)}
	rate, ok := g.runs[0].rate(g.round)
	require.True(t, ok)
	require.Less(t, rate/mib, 0.002, "MiB/s after the warm-up")
	require.NoError(t, g.beforeRun(context.Background(), runItem("streams/r1/run", 12*time.Hour)))
	g.close()

	g = &growth{read: constantFill(0.75), round: time.Minute, every: time.Hour, stop: func(error) {}}
	g.runs = []*runFill{run(climbing)}
	require.ErrorContains(t, g.beforeRun(context.Background(), runItem("streams/r1/run", 12*time.Hour)), "refused: it would outgrow the drive")
}
