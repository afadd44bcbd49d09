package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/report"
	"github.com/walab/walab/internal/experiment/state"
)

// TestMain lets a test start this binary as a separate experiment runner
// (WALAB_TEST_RUNNER=run|resume), so that it can SIGKILL it.
func TestMain(m *testing.M) {
	switch os.Getenv("WALAB_TEST_RUNNER") {
	case "run":
		data, err := os.ReadFile(os.Getenv("WALAB_TEST_PLAN"))
		if err == nil {
			var e *Executor
			if e, err = create(data, os.Getenv("WALAB_TEST_OUT")); err == nil {
				e.Stdout = os.Stdout
				err = e.Execute(context.Background())
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakePlan: every command appends its step id to the journal (outside the
// output directory), so the test counts executions; the run command writes
// a loadgen-style result whose TPS depends only on threads and repetition,
// after waiting for the gate file to vanish (the test kills the runner there).
func fakePlan(t *testing.T, journal, gate string) []byte {
	t.Helper()
	rec, run := fakeScripts(t, journal, gate)
	return []byte(fmt.Sprintf(`name: fake
reset:
  - name: wipe
    command: sh %[1]s; rm -rf "$WALAB_OUT/../scratch-$WALAB_RUN"
    destructive: true
runs:
  - name: base
    command: sh %[2]s
    sweep: {threads: [1, 2, 4]}
    repeat: 3
    restart: sh %[1]s
    between:
      - command: sh %[1]s
  - name: cand
    command: sh %[2]s
    repeat: 2
`, rec, run))
}

// fakeScripts writes the fake plans' two commands: rec appends the step to
// journal; run does too, then holds while gate.RUN_ID.hold exists (having
// touched gate.RUN_ID) and writes a result whose TPS is threads*10+rep+0.5.
func fakeScripts(t *testing.T, journal, gate string) (rec, run string) {
	t.Helper()
	dir := filepath.Dir(journal)
	rec = filepath.Join(dir, filepath.Base(journal)+"-rec.sh")
	run = filepath.Join(dir, filepath.Base(journal)+"-run.sh")
	require.NoError(t, os.WriteFile(rec, []byte(fmt.Sprintf("echo \"$WALAB_STEP\" >> %s\n", journal)), 0o755))
	require.NoError(t, os.WriteFile(run, []byte(fmt.Sprintf(`echo "$WALAB_STEP" >> %[1]s
touch %[2]s.$WALAB_RUN_ID
while [ -e %[2]s.$WALAB_RUN_ID.hold ]; do sleep 0.05; done
printf '{"results":[{"target":"a","tps":%%d.5,"transactions":%%d,"errors":0,"all":{"latency_p95_ms":2.5}}]}' \
  $((WALAB_THREADS*10+WALAB_REPETITION)) $((WALAB_THREADS*100)) > "$WALAB_RESULT_JSON"
`, journal, gate)), 0o755))
	return rec, run
}

func journalCounts(t *testing.T, path string) map[string]int {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		out[l]++
	}
	return out
}

// summary is what must be equal between an interrupted and an
// uninterrupted experiment: the counted runs and their figures.
func summary(st *state.State) []string {
	var out []string
	for _, r := range st.Runs {
		out = append(out, fmt.Sprintf("%s t%d r%d tps=%v", r.Run, r.Threads, r.Rep, *r.TPS))
	}
	sort.Strings(out)
	return out
}

func TestExecuteSweepRepeat(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal")
	e, err := create(fakePlan(t, journal, filepath.Join(dir, "gate")), filepath.Join(dir, "out"))
	require.NoError(t, err)
	var progress bytes.Buffer
	e.Stdout = &progress
	require.NoError(t, e.Execute(context.Background()))

	st := e.State()
	require.Len(t, st.Runs, 3*3+2, "3 thread counts × 3 repetitions + 2")
	require.NotNil(t, st.Finished)
	counts := journalCounts(t, journal)
	for id, n := range counts {
		require.Equal(t, 1, n, "step %s ran %d times", id, n)
	}
	require.Equal(t, 1, counts["base/reset/1-wipe"])
	require.Equal(t, 1, counts["base/t4/r3/restart"])
	require.Zero(t, counts["base/t4/r1/restart"], "no restart before the first repetition")

	groups := report.Aggregate(e.Plan, st.Runs)
	require.Len(t, groups, 4)
	require.Equal(t, 4, groups[2].Threads)
	require.InDelta(t, 42.5, groups[2].TPS.Mean, 1e-9) // 41.5, 42.5, 43.5
	require.InDelta(t, 41.5, groups[2].TPS.Min, 1e-9)
	require.InDelta(t, 43.5, groups[2].TPS.Max, 1e-9)
	require.InDelta(t, 42.5-4.303*1/1.7320508, groups[2].TPS.Lo, 1e-3)
	th, _, ok := report.Peak(groups, "base")
	require.True(t, ok)
	require.Equal(t, 4, th)

	report, err := os.ReadFile(filepath.Join(e.Out, ReportFile))
	require.NoError(t, err)
	require.Contains(t, string(report), "peak throughput at **4 threads**")
	require.Contains(t, string(report), "| base | base | 4 | 3 | 42.5 [40.0, 45.0] 41.5–43.5 |")
	for _, s := range st.Steps {
		if s.Log != "" && !strings.HasSuffix(s.Log, "report.log") {
			_, err := os.Stat(filepath.Join(e.Out, s.Log))
			require.NoError(t, err)
		}
	}
	require.Contains(t, progress.String(), "[run] base/t2/r2/run (step")
}

// startRunner starts this test binary as an experiment runner.
func startRunner(t *testing.T, plan, out string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WALAB_TEST_RUNNER=run", "WALAB_TEST_PLAN="+plan, "WALAB_TEST_OUT="+out)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("runner output:\n%s", buf.String())
		}
	})
	return cmd
}

func waitFile(t *testing.T, path string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", path)
}

// killedAt runs an uninterrupted reference of the plan that mkPlan writes,
// then the same plan in a runner process held in run id held's command and
// killed there with SIGKILL. It returns the reference, the killed
// experiment reopened, and the two journals.
func killedAt(t *testing.T, mkPlan func(t *testing.T, journal, gate string) []byte, held string) (ref, e *Executor, refJournal, journal string) {
	t.Helper()
	dir := t.TempDir()
	refJournal = filepath.Join(dir, "ref-journal")
	ref, err := create(mkPlan(t, refJournal, filepath.Join(dir, "refgate")), filepath.Join(dir, "ref"))
	require.NoError(t, err)
	require.NoError(t, ref.Execute(context.Background()))

	journal, gate := filepath.Join(dir, "journal"), filepath.Join(dir, "gate")
	planPath := filepath.Join(dir, "plan.yml")
	require.NoError(t, os.WriteFile(planPath, mkPlan(t, journal, gate), 0o644))
	require.NoError(t, os.WriteFile(gate+"."+held+".hold", nil, 0o644))
	out := filepath.Join(dir, "out")
	cmd := startRunner(t, planPath, out)
	waitFile(t, gate+"."+held)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	require.NoError(t, os.Remove(gate+"."+held+".hold"))
	e, err = Open(out)
	require.NoError(t, err)
	return ref, e, refJournal, journal
}

// TestResumeAfterSIGKILL: the runner killed with SIGKILL in the middle of
// a run resumes; the result equals an uninterrupted experiment's, no
// command ran twice except the interrupted run, which is counted once.
func TestResumeAfterSIGKILL(t *testing.T) {
	// Held in the second repetition of base at 2 threads.
	ref, e, refJournal, journal := killedAt(t, fakePlan, "fake-base-t2-r2")
	st := e.State().Steps["base/t2/r2/run"]
	require.Equal(t, state.StatusStarted, st.Status, "the killed step is recorded as started")
	require.Len(t, e.State().Runs, 4, "runs counted before the kill: t1 r1-3, t2 r1")
	require.NoError(t, e.Execute(context.Background()))

	require.Equal(t, summary(ref.State()), summary(e.State()))
	require.Equal(t, 2, e.State().Steps["base/t2/r2/run"].Attempts)
	for _, r := range e.State().Runs {
		if r.Step == "base/t2/r2/run" {
			require.Equal(t, "fake-base-t2-r2-a2", r.RunID, "the counted attempt has its own run id")
		}
	}
	counts := journalCounts(t, journal)
	for id, n := range counts {
		want := 1
		if id == "base/t2/r2/run" || id == "base/reset/1-wipe" || id == "base/between/1" {
			want = 2 // interrupted, then run again after a fresh reset; counted once
		}
		require.Equal(t, want, n, "step %s ran %d times", id, n)
	}
	require.Equal(t, journalCounts(t, refJournal)["base/reset/1-wipe"]+1, counts["base/reset/1-wipe"])
	requireBeforeRetry(t, journal, "base/t2/r2/run", "base/reset/1-wipe", "base/between/1")
}

// requireBeforeRetry: in the journal, each setup step ran again between
// the first and the second attempt of the retried run (issue 42 item 12:
// seed 000 restores before every run, a retry included).
func requireBeforeRetry(t *testing.T, journal, run string, setup ...string) {
	t.Helper()
	b, err := os.ReadFile(journal)
	require.NoError(t, err)
	lines := strings.Fields(string(b))
	first, second := -1, -1
	for i, l := range lines {
		if l == run && first < 0 {
			first = i
		} else if l == run {
			second = i
		}
	}
	require.Positive(t, second, "%s ran twice", run)
	for _, s := range setup {
		require.Contains(t, lines[first:second], s, "%s ran again before the retry of %s", s, run)
	}
}

// cyclesPlan is a plan of two runs alternating over three cycles, each with
// its reset and between.
func cyclesPlan(t *testing.T, journal, gate string) []byte {
	t.Helper()
	rec, run := fakeScripts(t, journal, gate)
	return []byte(fmt.Sprintf(`name: fake
reset:
  - name: wipe
    command: sh %[1]s
    destructive: true
cycles: 3
runs:
  - name: base
    command: sh %[2]s
    between: [{command: sh %[1]s}]
  - name: cand
    command: sh %[2]s
    between: [{command: sh %[1]s}]
`, rec, run))
}

// TestResumeAfterSIGKILLCycles: killed in the second cycle's candidate run,
// the runner resumes there, runs the third cycle in order and counts the
// same repetitions as an uninterrupted experiment; no step ran twice but
// the interrupted one.
func TestResumeAfterSIGKILLCycles(t *testing.T) {
	ref, e, refJournal, journal := killedAt(t, cyclesPlan, "fake-cand-r2")
	require.Equal(t, state.StatusStarted, e.State().Steps["cand/r2/run"].Status)
	require.Len(t, e.State().Runs, 3, "base r1, cand r1, base r2 before the kill")
	require.NoError(t, e.Execute(context.Background()))

	require.Equal(t, summary(ref.State()), summary(e.State()))
	var order []string
	for _, r := range e.State().Runs {
		order = append(order, fmt.Sprintf("%s r%d", r.Run, r.Rep))
	}
	require.Equal(t, []string{"base r1", "cand r1", "base r2", "cand r2", "base r3", "cand r3"}, order)
	again := []string{"cand/r2/run", "cand/c2/reset/1-wipe", "cand/c2/between/1"}
	for id, n := range journalCounts(t, journal) {
		want := 1
		if slices.Contains(again, id) {
			want = 2
		}
		require.Equal(t, want, n, "step %s ran %d times", id, n)
	}
	require.Equal(t, journalCounts(t, refJournal), func() map[string]int {
		c := journalCounts(t, journal)
		for _, id := range again {
			c[id]--
		}
		return c
	}(), "the same steps as the uninterrupted experiment, and the retried run's set-up again")
	requireBeforeRetry(t, journal, "cand/r2/run", again[1:]...)
}

// TestResumeRefusesInterruptedDestructive: a destructive step the runner
// died in is not repeated by resume; --skip or --redo decides.
func TestResumeRefusesInterruptedDestructive(t *testing.T) {
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	journal := filepath.Join(dir, "journal")
	yml := fmt.Sprintf(`name: d
reset:
  - name: format
    command: 'echo "$WALAB_STEP" >> %[1]s; touch %[2]s; while [ -e %[2]s.hold ]; do sleep 0.05; done'
    destructive: true
runs:
  - {name: r, command: 'echo "$WALAB_STEP" >> %[1]s'}
`, journal, gate)
	planPath := filepath.Join(dir, "plan.yml")
	require.NoError(t, os.WriteFile(planPath, []byte(yml), 0o644))
	require.NoError(t, os.WriteFile(gate+".hold", nil, 0o644))
	out := filepath.Join(dir, "out")
	cmd := startRunner(t, planPath, out)
	waitFile(t, gate)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	require.NoError(t, os.Remove(gate+".hold"))

	e, err := Open(out)
	require.NoError(t, err)
	err = e.Execute(context.Background())
	require.ErrorIs(t, err, ErrInterruptedDestructive)
	require.ErrorContains(t, err, "r/reset/1-format")
	require.ErrorContains(t, err, "--skip r/reset/1-format")
	require.Equal(t, map[string]int{"r/reset/1-format": 1}, journalCounts(t, journal))

	e, err = Open(out)
	require.NoError(t, err)
	e.Skip = map[string]bool{"r/reset/1-format": true}
	require.NoError(t, e.Execute(context.Background()))
	require.Equal(t, state.StatusSkipped, e.State().Steps["r/reset/1-format"].Status)
	require.Equal(t, map[string]int{"r/reset/1-format": 1, "r/r1/run": 1}, journalCounts(t, journal))
}

// TestFailingCheckStops: an unreachable target stops the experiment before
// its run, with the reason in the error, the state and the report.
func TestFailingCheckStops(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal")
	yml := fmt.Sprintf(`name: c
exporter: http://127.0.0.1:1
targets:
  - {name: db, dsn: "root@tcp(127.0.0.1:1)/x?timeout=1s"}
checks:
  - {check: irqbalance, expect: running, on_fail: warn}
  - {check: target_loaded, targets: [db]}
runs:
  - {name: r, command: 'echo "$WALAB_STEP" >> %s'}
`, journal)
	e, err := create([]byte(yml), filepath.Join(dir, "out"))
	require.NoError(t, err)
	err = e.Execute(context.Background())
	require.ErrorContains(t, err, "pre-run check failed: target_loaded: target db: unreachable")
	_, statErr := os.Stat(journal)
	require.True(t, errors.Is(statErr, os.ErrNotExist), "the run did not start")
	st := e.State()
	require.Equal(t, state.StatusFailed, st.Steps["r/checks"].Status)
	require.Len(t, st.Checks, 2)
	require.Equal(t, "fail", st.Checks[1].Status)
	require.Equal(t, "warn", st.Checks[0].Status, "no exporter answers: the fact is unknown, a warning")
	require.Contains(t, e.Report(), "| r | target_loaded | FAIL | target db: unreachable")
}

// TestBeforeRunRefuses: a BeforeRun error fails the run step before its
// command starts, and the runs before it ran.
func TestBeforeRunRefuses(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal")
	yml := fmt.Sprintf(`name: b
runs:
  - {name: one, command: 'echo "$WALAB_STEP" >> %[1]s'}
  - {name: two, command: 'echo "$WALAB_STEP" >> %[1]s'}
`, journal)
	e, err := create([]byte(yml), filepath.Join(dir, "out"))
	require.NoError(t, err)
	var seen []string
	e.BeforeRun = func(_ context.Context, it plan.Item) error {
		seen = append(seen, it.ID)
		if it.Run.Name == "two" {
			return errors.New("would outgrow the drive")
		}
		return nil
	}
	err = e.Execute(context.Background())
	require.ErrorContains(t, err, "would outgrow the drive")
	require.Equal(t, []string{"one/r1/run", "two/r1/run"}, seen)
	require.Equal(t, map[string]int{"one/r1/run": 1}, journalCounts(t, journal), "run two's command never started")
	require.Equal(t, state.StatusFailed, e.State().Steps["two/r1/run"].Status)
}

func TestCreateRefusesForeignDirs(t *testing.T) {
	dir := t.TempDir()
	yml := []byte("name: x\nruns: [{name: r, command: 'true'}]\n")
	busy := filepath.Join(dir, "busy")
	require.NoError(t, os.MkdirAll(busy, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(busy, "notes.txt"), []byte("mine"), 0o644))
	_, err := create(yml, busy)
	require.ErrorContains(t, err, "is not empty")

	foreign := filepath.Join(dir, "foreign")
	require.NoError(t, os.MkdirAll(foreign, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(foreign, state.StateFile), []byte(`{"something": "else"}`), 0o644))
	_, err = Open(foreign)
	require.ErrorContains(t, err, "is not a walab experiment state file")

	_, err = Open(filepath.Join(dir, "none"))
	require.ErrorContains(t, err, "no experiment state here")

	// A symlink or FIFO where walab writes is not replaced.
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(filepath.Join(dir, "busy", "notes.txt"), link))
	require.ErrorContains(t, state.WriteAtomic(link, []byte("x")), "not a regular file")
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, unix.Mkfifo(fifo, 0o644))
	require.ErrorContains(t, state.WriteAtomic(fifo, []byte("x")), "not a regular file")
	b, _ := os.ReadFile(filepath.Join(busy, "notes.txt"))
	require.Equal(t, "mine", string(b))

	// A changed plan copy is refused on resume.
	out := filepath.Join(dir, "out")
	_, err = create(yml, out)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(out, state.PlanFile), append(yml, '#'), 0o644))
	_, err = Open(out)
	require.ErrorContains(t, err, "changed since the experiment started")
}

func TestDryRunGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/plans/good.yml")
	require.NoError(t, err)
	p, err := Parse(data)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, DryRun(p, &b))
	require.Contains(t, b.String(), "[DESTRUCTIVE]")
	assertGolden(t, "dry-run.txt", b.Bytes())
}

// stepIDs is the items' IDs in order.
func stepIDs(items []plan.Item) []string {
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

// TestDryRunCycles: with cycles: 2 the runs alternate (base, cand, base,
// cand), each with its reset, between and checks in every cycle, and the
// second cycle's runs are repetition 2.
func TestDryRunCycles(t *testing.T) {
	data, err := os.ReadFile("testdata/cycles.yml")
	require.NoError(t, err)
	p, err := Parse(data)
	require.NoError(t, err)
	items, err := plan.Steps(p)
	require.NoError(t, err)
	ids := stepIDs(items)
	require.Equal(t, []string{
		"base/reset/1-restore", "base/between/1", "base/checks", "base/r1/run",
		"cand/reset/1-restore", "cand/between/1", "cand/checks", "cand/r1/run",
		"base/c2/reset/1-restore", "base/c2/between/1", "base/c2/checks", "base/r2/run",
		"cand/c2/reset/1-restore", "cand/c2/between/1", "cand/c2/checks", "cand/r2/run",
		"compare", "report"}, ids)
	require.Equal(t, "cycles-cand-r2", p.RunID(items[15], 1))
	var b bytes.Buffer
	require.NoError(t, DryRun(p, &b))
	assertGolden(t, "dry-run-cycles.txt", b.Bytes())
}
