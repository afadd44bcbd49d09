package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment/check"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// Executor runs a plan's items in order and records each in the journal
// (state). Its own methods are the step loop, resume (exec.go, and the
// interrupted groups' end in procgroup.go), the journal and the report
// (report.go, over the report package). Each step's work has its own
// receiver: a step's process (stepProcess: command.go, procgroup.go,
// remote_session.go), a run item between two fingerprints (runStep:
// run.go, fio_run.go, tools.go, treatment.go, profile.go,
// untilsteady.go), the compare step (compareStep: compare.go); the
// pre-run checks run the check package's kinds (checks.go); the secrets
// stay out of logs and the report (redact.go).
type Executor struct {
	Plan      *plan.Plan
	PlanBytes []byte    // the plan as written: ${NAME} not expanded
	Out       string    // output directory: state, logs, runs, report
	Stdout    io.Writer // progress lines
	HTTP      *http.Client
	// Skip marks interrupted steps done without running them; Redo runs
	// interrupted destructive steps again. Both only on resume, by step id.
	Skip, Redo map[string]bool
	Metrics    *Metrics
	// ProgressEvery is the period of progress lines and metrics during a
	// run (default 30 s); PollEvery of a precondition's written check (1 s).
	ProgressEvery, PollEvery time.Duration
	// StepTimeout bounds a step that gives no timeout: of its own
	// (default DefaultStepTimeout).
	StepTimeout time.Duration
	// KillGrace is how long a step's process group gets after SIGTERM;
	// GroupWait how long resume waits for an interrupted step's group to
	// be gone after SIGKILL (default 2 min).
	KillGrace, GroupWait time.Duration
	// OnCompare, when set, gets the verdict the compare step recorded
	// (walab lab writes its HTML report from it).
	OnCompare func(*compare.Result)
	// BeforeRun, when set, is called just before a run step starts its
	// workload (after its reset, checks and between steps); an error fails
	// the step unrun, with that error (walab lab refuses a run that would
	// outgrow its drive).
	BeforeRun func(ctx context.Context, it plan.Item) error

	state  *state.State
	items  []plan.Item
	redact redactor
	setup  string // the set-up whose checks run (setupKey)

	tools toolVersions
}

// stepProcess is the executor's part that starts and ends processes: one
// step's command in its own process group (procgroup.go), its log, its
// remote session (remote_session.go), and how it ends: exit, timeout,
// interrupt or a stop condition (command.go). Its group and remote session
// go to the journal as they start.
type stepProcess struct {
	plan    *plan.Plan
	out     string // the experiment's directory, the journal's home
	journal *state.State
	redact  redactor
	// The executor's KillGrace, PollEvery and ProgressEvery.
	killGrace, pollEvery, progressEvery time.Duration
}

func newStepProcess(e *Executor) *stepProcess {
	return &stepProcess{plan: e.Plan, out: e.Out, journal: e.state, redact: e.redact,
		killGrace: e.KillGrace, pollEvery: e.PollEvery, progressEvery: e.ProgressEvery}
}

// runStep is one run item's work (run.go): the workload between two
// fingerprints, with its fio counters (fio_run.go), its tools' versions
// (tools.go), its treatment (treatment.go), its CPU profile (profile.go)
// and its until_steady watch (untilsteady.go), and the record of the run.
type runStep struct {
	plan    *plan.Plan
	out     string
	journal *state.State
	items   []plan.Item // the time left counts the items after it
	setup   string      // the set-up whose checks ran in this process
	http    *http.Client
	metrics *Metrics
	redact  redactor
	tools   *toolVersions
	proc    *stepProcess
	probe   *treatmentProbe // the run's treatment, worked out once (treatment.go)
	printf  func(format string, args ...any)
}

func newRunStep(e *Executor) *runStep {
	return &runStep{plan: e.Plan, out: e.Out, journal: e.state, items: e.items, setup: e.setup, http: e.HTTP, metrics: e.Metrics,
		redact: e.redact, tools: &e.tools, proc: newStepProcess(e), printf: e.printf}
}

// Create prepares a new experiment in out, which must not exist or be
// empty: walab writes only into a directory of its own. src.Raw is the
// plan as written, stored as it is: its ${NAME} references are expanded
// from src.Getenv here and from the environment again on resume, never
// stored expanded; src.Set is recorded in the state for resume.
func Create(src plan.Source, out string) (*Executor, error) {
	p, err := plan.Load(src, Kinds())
	if err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
		if _, err := os.Lstat(filepath.Join(out, state.StateFile)); err == nil {
			return nil, fmt.Errorf("%s already holds an experiment: continue it with walab experiment resume --out %s, or choose a new directory", out, out)
		}
		return nil, fmt.Errorf("%s is not empty: walab writes an experiment only into a new or empty directory", out)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	items, err := plan.Steps(p)
	if err != nil {
		return nil, err
	}
	if err := preflight(p, items); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(src.Raw)
	e := &Executor{Plan: p, PlanBytes: src.Raw, Out: out, items: items, redact: redactor{secretsOf(src)}, state: &state.State{
		Magic: state.Magic, Plan: p.Name, PlanSHA256: hex.EncodeToString(sum[:]),
		Created: time.Now().UTC(), Steps: map[string]*state.StepState{}, Settings: src.Set,
	}}
	e.state.ExpandedSHA256 = expandedSum(e.redact, src)
	if err := state.WriteAtomicMode(filepath.Join(out, state.PlanFile), src.Raw, 0o600); err != nil {
		return nil, err
	}
	return e, state.Save(e.Out, e.state)
}

// Open continues the experiment in out, with the plan copy stored there,
// its ${NAME} expanded from the environment and the settings it started
// with.
func Open(out string) (*Executor, error) {
	st, err := state.Load(out)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(out, state.PlanFile))
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != st.PlanSHA256 {
		return nil, fmt.Errorf("%s changed since the experiment started: resume runs the plan it started with", filepath.Join(out, state.PlanFile))
	}
	src := plan.Source{Raw: b, Getenv: os.LookupEnv, Set: st.Settings}
	p, err := plan.Load(src, Kinds())
	if err != nil {
		return nil, fmt.Errorf("%s (resume expands its ${NAME} from the environment again):\n%w", filepath.Join(out, state.PlanFile), err)
	}
	items, err := plan.Steps(p)
	if err != nil {
		return nil, err
	}
	e := &Executor{Plan: p, PlanBytes: b, Out: out, items: items, state: st, redact: redactor{secretsOf(src)}}
	if st.ExpandedSHA256 != "" && expandedSum(e.redact, src) != st.ExpandedSHA256 {
		return nil, fmt.Errorf("the environment expands the ${NAME} of %s differently than when the experiment started: resume runs the plan it started with", filepath.Join(out, state.PlanFile))
	}
	return e, nil
}

// maxArg is Linux's MAX_ARG_STRLEN: exec refuses a longer argument.
const maxArg = 128 << 10

// preflight finds before anything runs (the destructive reset included)
// what would fail later: a loadgen or fio binary that is not there, an
// argument exec would refuse as too long.
func preflight(p *plan.Plan, items []plan.Item) error {
	var errs plan.Errors
	seen := map[string]bool{}
	for _, it := range items {
		if it.Phase == plan.PhaseChecks || it.Phase == plan.PhaseCompare || it.Phase == plan.PhaseReport {
			continue
		}
		argv, err := p.Argv(it, 1, "RUN_DIR/result.json")
		if err != nil || len(argv) == 0 {
			continue
		}
		for _, a := range argv {
			if len(a) >= maxArg {
				errs = append(errs, plan.LineError{Msg: fmt.Sprintf("step %s: an argument of %d bytes: exec takes at most %d (put the text in a file)", it.ID, len(a), maxArg-1)})
				break
			}
		}
		bin := argv[0]
		if (it.Step != nil && it.Step.Loadgen != "" || it.Run != nil && it.Step == nil && it.Run.Command == "") && !seen[bin] {
			seen[bin] = true
			if _, err := exec.LookPath(bin); err != nil {
				errs = append(errs, plan.LineError{Msg: fmt.Sprintf("step %s: %s: %v", it.ID, bin, err)})
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// State is the recorded progress (read-only for callers).
func (e *Executor) State() *state.State { return e.state }

// Items are the flattened plan.
func (e *Executor) Items() []plan.Item { return e.items }

func (e *Executor) printf(format string, args ...any) {
	if e.Stdout != nil {
		fmt.Fprintf(e.Stdout, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

// httpClient is c, or a client with a 15 s timeout.
func httpClient(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Timeout: 15 * time.Second}
}

// ErrInterruptedDestructive stops a resume at a destructive step that was
// interrupted: walab does not repeat it on its own.
var ErrInterruptedDestructive = errors.New("interrupted destructive step")

// Execute runs every item not yet done. A failing item stops the
// experiment with its reason; resume continues at the first item not done.
func (e *Executor) Execute(ctx context.Context) error {
	e.Metrics.setTotal(len(e.items))
	if err := knownIDs(e.items, e.Skip, e.Redo); err != nil {
		return err
	}
	if err := e.endInterrupted(); err != nil {
		return err
	}
	if err := e.freshSetup(); err != nil {
		return err
	}
	for i, it := range e.items {
		st := e.state.Steps[it.ID]
		if st != nil && (st.Status == state.StatusDone || st.Status == state.StatusSkipped) {
			e.Metrics.stepDone()
			continue
		}
		if st != nil && (st.Status == state.StatusStarted || st.Status == state.StatusFailed) && it.Destructive {
			skipped, err := e.interruptedDestructive(it, st)
			if err != nil {
				return err
			}
			if skipped {
				continue
			}
		}
		if st == nil {
			st = &state.StepState{}
			e.state.Steps[it.ID] = st
		}
		st.Attempts++
		st.Status, st.Start, st.End, st.Error = state.StatusStarted, time.Now().UTC(), time.Time{}, ""
		st.Log = filepath.Join("logs", fmt.Sprintf("%03d-%s.log", i+1, safeName(it.ID)))
		if err := state.Save(e.Out, e.state); err != nil {
			return err
		}
		e.Metrics.setStep(it, timeLeft(e.items, e.state.Steps, i, 0))
		e.printf("[%s] %s (step %d/%d, attempt %d)%s", it.Phase, it.ID, i+1, len(e.items), st.Attempts, leftNote(timeLeft(e.items, e.state.Steps, i, 0)))
		rec, err := e.do(ctx, i, it, st)
		st.End = time.Now().UTC()
		if err != nil {
			if ctx.Err() != nil {
				// Interrupted: the step stays "started" for resume to judge.
				_ = state.Save(e.Out, e.state)
				return fmt.Errorf("step %s interrupted: %w", it.ID, ctx.Err())
			}
			st.Status, st.Error = state.StatusFailed, err.Error()
			if serr := state.Save(e.Out, e.state); serr != nil {
				return serr
			}
			e.printf("[%s] %s FAILED: %v (log %s)", it.Phase, it.ID, err, filepath.Join(e.Out, st.Log))
			return fmt.Errorf("step %s: %w", it.ID, err)
		}
		if err := e.recordDone(it, st, rec); err != nil {
			return err
		}
		e.printf("[%s] %s done in %s", it.Phase, it.ID, st.End.Sub(st.Start).Round(time.Millisecond))
	}
	return nil
}

// recordDone records a step that ended well, and its run. A record the
// state file cannot hold fails the step with the reason (it does not
// stay "started"), and its run is not counted.
func (e *Executor) recordDone(it plan.Item, st *state.StepState, rec *state.RunRecord) error {
	st.Status = state.StatusDone
	runs, finished := e.state.Runs, e.state.Finished
	if rec != nil {
		e.state.Runs = append(e.state.Runs, *rec)
	}
	if it.Phase == plan.PhaseReport {
		now := time.Now().UTC()
		e.state.Finished = &now
	}
	if err := state.Save(e.Out, e.state); err != nil {
		e.state.Runs, e.state.Finished = runs, finished
		st.Status, st.Error = state.StatusFailed, fmt.Sprintf("walab could not record the step's result: %v", err)
		if serr := state.Save(e.Out, e.state); serr != nil {
			return serr
		}
		e.printf("[%s] %s FAILED: %s (log %s)", it.Phase, it.ID, st.Error, filepath.Join(e.Out, st.Log))
		return fmt.Errorf("step %s: %s", it.ID, st.Error)
	}
	if rec != nil {
		e.Metrics.runDone(e.Plan, rec)
	}
	e.Metrics.stepDone()
	return nil
}

// DefaultStepTimeout bounds a command, loadgen or restart step that gives
// no timeout: of its own, so that a step that hangs (a prompt, a lost host)
// fails instead of holding the experiment forever. A step with written:
// ends by its condition and gets none.
const DefaultStepTimeout = 12 * time.Hour

// stepTimeout bounds a step: its own timeout, none for one stopped by
// its written volume, else def (DefaultStepTimeout when 0).
func stepTimeout(s *plan.Step, def time.Duration) time.Duration {
	switch {
	case s.Timeout.D() > 0:
		return s.Timeout.D()
	case s.Written > 0:
		return 0
	}
	return orDefault(def, DefaultStepTimeout)
}

// knownIDs refuses a --skip or --redo that names no step of the plan's
// items: a typo must not pass for a decision.
func knownIDs(items []plan.Item, skip, redo map[string]bool) error {
	ids := map[string]bool{}
	for _, it := range items {
		ids[it.ID] = true
	}
	for flag, m := range map[string]map[string]bool{"--skip": skip, "--redo": redo} {
		for _, id := range slices.Sorted(maps.Keys(m)) {
			if !ids[id] {
				return fmt.Errorf("resume %s %s: the plan has no step %q (walab experiment run --dry-run lists the step ids)", flag, id, id)
			}
		}
	}
	return nil
}

// freshSetup gives a run that is retried (a resume after a kill or a
// failure of its attempt) its set-up again: its reset, precondition,
// between and checks are marked to run again before it, as seed 000
// restores before every run. A run resume will not repeat on its own (an
// interrupted destructive one without --redo) gets nothing.
func (e *Executor) freshSetup() error {
	for i, it := range e.items {
		st := e.state.Steps[it.ID]
		if st != nil && (st.Status == state.StatusDone || st.Status == state.StatusSkipped) {
			continue
		}
		if it.Phase != plan.PhaseRun || st == nil || st.Attempts == 0 || e.Skip[it.ID] ||
			it.Destructive && !e.Redo[it.ID] && (st.Status == state.StatusStarted || st.Status == state.StatusFailed) {
			return nil // only the first item not done matters
		}
		for j := i - 1; j >= 0 && e.items[j].Run == it.Run; j-- {
			s := e.items[j]
			ss := e.state.Steps[s.ID]
			switch {
			case ss == nil || ss.Status != state.StatusDone:
			case s.Phase == plan.PhaseReset || s.Phase == plan.PhasePrecondition || s.Phase == plan.PhaseBetween || s.Phase == plan.PhaseChecks:
				ss.Status, ss.Note = state.StatusAgain, "runs again before the retry of "+it.ID
				e.printf("[resume] %s: runs again before the retry of %s", s.ID, it.ID)
			}
		}
		return state.Save(e.Out, e.state)
	}
	return nil
}

// interruptedDestructive decides a destructive step that was interrupted
// or failed, on resume: marked done (resume --skip: skipped is true), run
// again (--redo), or refused with ErrInterruptedDestructive.
func (e *Executor) interruptedDestructive(it plan.Item, st *state.StepState) (skipped bool, err error) {
	switch {
	case e.Skip[it.ID]:
		st.Status, st.Note = state.StatusSkipped, "marked done by resume --skip"
		if err := state.Save(e.Out, e.state); err != nil {
			return false, err
		}
		e.printf("[%s] %s: skipped (resume --skip)", it.Phase, it.ID)
		return true, nil
	case !e.Redo[it.ID]:
		return false, fmt.Errorf("%w: step %s (%s) was %s at attempt %d (started %s) and is destructive: walab does not repeat it on its own; "+
			"check the system, then resume with --skip %s (it completed) or --redo %s (run it again)",
			ErrInterruptedDestructive, it.ID, shortCmd(it), interruptedWord(st.Status), st.Attempts,
			st.Start.Format(time.RFC3339), it.ID, it.ID)
	}
	return false, nil
}

func interruptedWord(status string) string {
	if status == state.StatusFailed {
		return "failed"
	}
	return "interrupted"
}

func shortCmd(it plan.Item) string {
	if it.Step == nil {
		return it.Phase
	}
	return strings.TrimSpace(it.Step.Command + it.Step.Loadgen)
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.=-]+`)

func safeName(id string) string { return unsafeChars.ReplaceAllString(id, "_") }

func leftNote(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(" · runs left: %s", d.Round(time.Second))
}

// timeLeft is the planned run time of item i (less elapsed) and after it:
// commands and checks are not counted, so it is a lower bound.
func timeLeft(items []plan.Item, steps map[string]*state.StepState, i int, elapsed time.Duration) time.Duration {
	var d time.Duration
	for j := i; j < len(items); j++ {
		if st := steps[items[j].ID]; j > i && st != nil && st.Status == state.StatusDone {
			continue
		}
		d += items[j].Expected
	}
	return max(d-elapsed, 0)
}

func (e *Executor) do(ctx context.Context, i int, it plan.Item, st *state.StepState) (*state.RunRecord, error) {
	logPath := filepath.Join(e.Out, st.Log)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	switch it.Phase {
	case plan.PhaseChecks:
		e.setup = check.SetupKey(it.ID)
		return nil, runChecks(ctx, e.checkEnv(), it, logPath, e.printf)
	case plan.PhaseCompare:
		return nil, compareStep{plan: e.Plan, journal: e.state, out: e.Out, onCompare: e.OnCompare, printf: e.printf}.run(ctx, logPath)
	case plan.PhaseReport:
		return nil, e.WriteReport()
	case plan.PhaseRun:
		if e.BeforeRun != nil {
			if err := e.BeforeRun(ctx, it); err != nil {
				return nil, err
			}
		}
		return newRunStep(e).run(ctx, i, it, st, logPath)
	}
	argv, err := e.Plan.Argv(it, st.Attempts, "")
	if err != nil {
		return nil, err
	}
	e.checkEnv().SnapshotDiscard(ctx, it)
	var stop func() (bool, string)
	if it.Step.Written > 0 {
		stop, err = writtenStop(ctx, httpClient(e.HTTP), e.Plan, it.Step.Written)
		if err != nil {
			return nil, err
		}
	}
	proc := newStepProcess(e)
	_, _, note, err := proc.command(ctx, it, st.Attempts, argv, proc.env(it, st.Attempts, ""), logPath, stepTimeout(it.Step, e.StepTimeout), stop, nil)
	st.Note = note
	return nil, err
}
