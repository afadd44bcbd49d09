package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/runner"
)

// Executor runs a plan's items in order and records each in the state file.
type Executor struct {
	Plan      *Plan
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
	// KillGrace is how long a step's process group gets after SIGTERM;
	// GroupWait how long resume waits for an interrupted step's group to
	// be gone after SIGKILL (default 2 min).
	KillGrace, GroupWait time.Duration
	// OnCompare, when set, gets the verdict the compare step recorded
	// (walab lab writes its HTML report from it).
	OnCompare func(*compare.Result)

	state  *State
	items  []Item
	redact redactor

	loadgenOnce sync.Once // loadgenVersion
	loadgenVer  string
}

// Create prepares a new experiment in out, which must not exist or be
// empty: walab writes only into a directory of its own. planBytes is the
// plan as written; its ${NAME} references are expanded from the
// environment here and again on resume, never stored expanded.
func Create(planBytes []byte, out string) (*Executor, error) {
	p, expanded, err := parseEnv(planBytes)
	if err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
		if _, err := os.Lstat(filepath.Join(out, StateFile)); err == nil {
			return nil, fmt.Errorf("%s already holds an experiment: continue it with walab experiment resume --out %s, or choose a new directory", out, out)
		}
		return nil, fmt.Errorf("%s is not empty: walab writes an experiment only into a new or empty directory", out)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	items, err := Steps(p)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(planBytes)
	e := &Executor{Plan: p, PlanBytes: planBytes, Out: out, items: items, redact: redactor{secretsOf(planBytes, os.LookupEnv)}, state: &State{
		Magic: stateMagic, Plan: p.Name, PlanSHA256: hex.EncodeToString(sum[:]),
		Created: time.Now().UTC(), Steps: map[string]*StepState{},
	}}
	e.state.ExpandedSHA256 = e.expandedSum(expanded)
	if err := writeAtomicMode(filepath.Join(out, PlanFile), planBytes, 0o600); err != nil {
		return nil, err
	}
	return e, e.save()
}

// Open continues the experiment in out, with the plan copy stored there.
func Open(out string) (*Executor, error) {
	st, err := loadState(out)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(out, PlanFile))
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != st.PlanSHA256 {
		return nil, fmt.Errorf("%s changed since the experiment started: resume runs the plan it started with", filepath.Join(out, PlanFile))
	}
	p, expanded, err := parseEnv(b)
	if err != nil {
		return nil, fmt.Errorf("%s (resume expands its ${NAME} from the environment again):\n%w", filepath.Join(out, PlanFile), err)
	}
	items, err := Steps(p)
	if err != nil {
		return nil, err
	}
	e := &Executor{Plan: p, PlanBytes: b, Out: out, items: items, state: st, redact: redactor{secretsOf(b, os.LookupEnv)}}
	if st.ExpandedSHA256 != "" && e.expandedSum(expanded) != st.ExpandedSHA256 {
		return nil, fmt.Errorf("the environment expands the ${NAME} of %s differently than when the experiment started: resume runs the plan it started with", filepath.Join(out, PlanFile))
	}
	return e, nil
}

// State is the recorded progress (read-only for callers).
func (e *Executor) State() *State { return e.state }

// Items are the flattened plan.
func (e *Executor) Items() []Item { return e.items }

func (e *Executor) printf(format string, args ...any) {
	if e.Stdout != nil {
		fmt.Fprintf(e.Stdout, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

func (e *Executor) client() *http.Client {
	if e.HTTP != nil {
		return e.HTTP
	}
	return &http.Client{Timeout: 15 * time.Second}
}

// DryRun prints every step with its command; destructive ones are flagged.
func DryRun(p *Plan, w io.Writer) error { return dryRun(p, w, redactor{}) }

// DryRunFile is DryRun of a plan file as written: its ${NAME} expanded from
// the environment, the secret ones hidden in the output.
func DryRunFile(raw []byte, w io.Writer) error {
	p, _, err := parseEnv(raw)
	if err != nil {
		return err
	}
	return dryRun(p, w, redactor{secretsOf(raw, os.LookupEnv)})
}

func dryRun(p *Plan, w io.Writer, r redactor) error {
	items, err := Steps(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "experiment %s: %d steps\n", p.Name, len(items))
	for i, it := range items {
		flag := ""
		if it.Destructive {
			flag = "  [DESTRUCTIVE]"
		}
		line := ""
		switch it.Phase {
		case PhaseChecks:
			var names []string
			for _, c := range p.Checks {
				names = append(names, c.Check+"("+c.onFail()+")")
			}
			line = "checks: " + strings.Join(names, ", ")
		case PhaseCompare:
			line = fmt.Sprintf("walab compare --baseline %s --candidate %s (device %s, %s)", p.Compare.Baseline, p.Compare.Candidate, p.Device, p.Prometheus)
		case PhaseReport:
			line = "write report.md"
		default:
			argv, err := p.Argv(it, 1, "RUN_DIR/result.json")
			if err != nil {
				return err
			}
			line = shellQuote(r.argv(argv))
			if it.Phase == PhaseRun {
				line += fmt.Sprintf("   (fingerprint at start and end%s)", durNote(it.Expected))
			}
			if it.Step != nil && it.Step.Written > 0 {
				line += fmt.Sprintf("   (stopped once the drive took %.3g capacities of host writes)", it.Step.Written)
			}
		}
		fmt.Fprintf(w, "%3d %-12s %-28s %s%s\n", i+1, it.Phase, it.ID, line, flag)
	}
	return nil
}

func durNote(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return ", " + d.String()
}

var plainArg = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(argv []string) string {
	if len(argv) == 3 && argv[0] == "/bin/sh" && argv[1] == "-c" {
		return argv[2]
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		if plainArg.MatchString(a) {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

func (c Check) onFail() string {
	if c.OnFail == "" {
		return "stop"
	}
	return c.OnFail
}

// ErrInterruptedDestructive stops a resume at a destructive step that was
// interrupted: walab does not repeat it on its own.
var ErrInterruptedDestructive = errors.New("interrupted destructive step")

// Execute runs every item not yet done. A failing item stops the
// experiment with its reason; resume continues at the first item not done.
func (e *Executor) Execute(ctx context.Context) error {
	e.Metrics.setTotal(len(e.items))
	if err := e.endInterrupted(); err != nil {
		return err
	}
	for i, it := range e.items {
		st := e.state.Steps[it.ID]
		if st != nil && (st.Status == StatusDone || st.Status == StatusSkipped) {
			e.Metrics.stepDone()
			continue
		}
		if st != nil && (st.Status == StatusStarted || st.Status == StatusFailed) && it.Destructive {
			switch {
			case e.Skip[it.ID]:
				st.Status, st.Note = StatusSkipped, "marked done by resume --skip"
				if err := e.save(); err != nil {
					return err
				}
				e.printf("[%s] %s: skipped (resume --skip)", it.Phase, it.ID)
				continue
			case !e.Redo[it.ID]:
				return fmt.Errorf("%w: step %s (%s) was %s at attempt %d (started %s) and is destructive: walab does not repeat it on its own; "+
					"check the system, then resume with --skip %s (it completed) or --redo %s (run it again)",
					ErrInterruptedDestructive, it.ID, shortCmd(it), interruptedWord(st.Status), st.Attempts,
					st.Start.Format(time.RFC3339), it.ID, it.ID)
			}
		}
		if st == nil {
			st = &StepState{}
			e.state.Steps[it.ID] = st
		}
		st.Attempts++
		st.Status, st.Start, st.End, st.Error = StatusStarted, time.Now().UTC(), time.Time{}, ""
		st.Log = filepath.Join("logs", fmt.Sprintf("%03d-%s.log", i+1, safeName(it.ID)))
		if err := e.save(); err != nil {
			return err
		}
		e.Metrics.setStep(it, e.timeLeft(i, 0))
		e.printf("[%s] %s (step %d/%d, attempt %d)%s", it.Phase, it.ID, i+1, len(e.items), st.Attempts, leftNote(e.timeLeft(i, 0)))
		rec, err := e.do(ctx, i, it, st)
		st.End = time.Now().UTC()
		if err != nil {
			if ctx.Err() != nil {
				// Interrupted: the step stays "started" for resume to judge.
				_ = e.save()
				return fmt.Errorf("step %s interrupted: %w", it.ID, ctx.Err())
			}
			st.Status, st.Error = StatusFailed, err.Error()
			if serr := e.save(); serr != nil {
				return serr
			}
			e.printf("[%s] %s FAILED: %v (log %s)", it.Phase, it.ID, err, filepath.Join(e.Out, st.Log))
			return fmt.Errorf("step %s: %w", it.ID, err)
		}
		st.Status = StatusDone
		if rec != nil {
			e.state.Runs = append(e.state.Runs, *rec)
			e.Metrics.runDone(e.Plan, rec)
		}
		if it.Phase == PhaseReport {
			now := time.Now().UTC()
			e.state.Finished = &now
		}
		if err := e.save(); err != nil {
			return err
		}
		e.Metrics.stepDone()
		e.printf("[%s] %s done in %s", it.Phase, it.ID, st.End.Sub(st.Start).Round(time.Millisecond))
	}
	return nil
}

func interruptedWord(status string) string {
	if status == StatusFailed {
		return "failed"
	}
	return "interrupted"
}

func shortCmd(it Item) string {
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
func (e *Executor) timeLeft(i int, elapsed time.Duration) time.Duration {
	var d time.Duration
	for j := i; j < len(e.items); j++ {
		if st := e.state.Steps[e.items[j].ID]; j > i && st != nil && st.Status == StatusDone {
			continue
		}
		d += e.items[j].Expected
	}
	return max(d-elapsed, 0)
}

func (e *Executor) do(ctx context.Context, i int, it Item, st *StepState) (*RunRecord, error) {
	logPath := filepath.Join(e.Out, st.Log)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	switch it.Phase {
	case PhaseChecks:
		return nil, e.runChecks(ctx, it, logPath)
	case PhaseCompare:
		return nil, e.compare(ctx, logPath)
	case PhaseReport:
		return nil, e.writeReport()
	case PhaseRun:
		return e.run(ctx, i, it, st, logPath)
	}
	argv, err := e.Plan.Argv(it, st.Attempts, "")
	if err != nil {
		return nil, err
	}
	var stop func() (bool, string)
	if it.Step.Written > 0 {
		stop, err = e.writtenStop(ctx, it.Step.Written)
		if err != nil {
			return nil, err
		}
	}
	_, _, note, err := e.command(ctx, it, st.Attempts, argv, e.env(it, st.Attempts, ""), logPath, it.Step.Timeout.D(), stop, nil)
	st.Note = note
	return nil, err
}

// writtenStop returns a condition that is true once the drive's host
// counter moved by capacities × its capacity since now.
func (e *Executor) writtenStop(ctx context.Context, capacities float64) (func() (bool, string), error) {
	d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
	if err != nil && d == nil {
		return nil, fmt.Errorf("written: %w", err)
	}
	if d.HostWrittenBytes == nil || d.CapacityBytes == nil || *d.CapacityBytes <= 0 {
		return nil, fmt.Errorf("written: the exporter reports no host write counter or capacity for %s", e.Plan.Device)
	}
	start, want := *d.HostWrittenBytes, capacities**d.CapacityBytes
	return func() (bool, string) {
		d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
		if err != nil && d == nil || d.HostWrittenBytes == nil {
			return false, ""
		}
		done := *d.HostWrittenBytes - start
		return done >= want, fmt.Sprintf("stopped after %.2f drive capacities of host writes (%.0f bytes)", done / *d.CapacityBytes, done)
	}, nil
}

func (e *Executor) env(it Item, attempt int, resultJSON string) []string {
	env := append(os.Environ(),
		"WALAB_EXPERIMENT="+e.Plan.Name, "WALAB_STEP="+it.ID, "WALAB_PHASE="+it.Phase,
		"WALAB_OUT="+e.Out, "WALAB_EXPORTER="+e.Plan.Exporter, "WALAB_DEVICE="+e.Plan.Device)
	if it.Run != nil {
		env = append(env, "WALAB_RUN="+it.Run.Name, "WALAB_SCENARIO="+it.Run.ScenarioLabel())
	}
	if it.Phase == PhaseRun || it.Phase == PhaseRestart {
		env = append(env, "WALAB_RUN_ID="+e.Plan.RunID(it, attempt), "WALAB_REPETITION="+strconv.Itoa(it.Rep),
			"WALAB_THREADS="+strconv.Itoa(it.Threads))
	}
	if resultJSON != "" {
		env = append(env, "WALAB_RESULT_JSON="+resultJSON,
			"WALAB_DURATION_SECONDS="+strconv.Itoa(int(it.Expected/time.Second)))
	}
	return env
}

// command runs argv in its own process group with output appended to
// logPath. stop, polled every PollEvery, ends the command early as a
// success; tick is called every ProgressEvery while it runs.
func (e *Executor) command(ctx context.Context, it Item, attempt int, argv, env []string, logPath string, timeout time.Duration,
	stop func() (bool, string), tick func(elapsed time.Duration)) (start, end time.Time, note string, err error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o640)
	if err != nil {
		return start, end, "", err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "=== %s attempt %d at %s\n$ %s\n", it.ID, attempt, time.Now().UTC().Format(time.RFC3339), shellQuote(e.redact.argv(argv)))
	start = time.Now().UTC()
	// Own process group, recorded before it runs, killed as a whole, and
	// killed with the runner (procgroup.go).
	cmd, err := e.startGroup(it, argv, env, logf)
	if err != nil {
		return start, start, "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	poll := time.NewTicker(orDefault(e.PollEvery, time.Second))
	defer poll.Stop()
	prog := time.NewTicker(orDefault(e.ProgressEvery, 30*time.Second))
	defer prog.Stop()
	kill := func() { stopGroup(cmd.Process.Pid, done, orDefault(e.KillGrace, 10*time.Second)) }
	for {
		select {
		case err := <-done:
			endOrphans(cmd, logf)
			end = time.Now().UTC()
			fmt.Fprintf(logf, "=== exit: %v after %s\n", exitText(err), end.Sub(start).Round(time.Millisecond))
			if err != nil {
				return start, end, "", fmt.Errorf("%s: %s", shortArgv(e.redact.argv(argv)), exitText(err))
			}
			return start, end, "", nil
		case <-ctx.Done():
			kill()
			end = time.Now().UTC()
			fmt.Fprintf(logf, "=== interrupted: %v\n", ctx.Err())
			return start, end, "", ctx.Err()
		case <-deadline:
			kill()
			end = time.Now().UTC()
			fmt.Fprintf(logf, "=== timeout after %s\n", timeout)
			return start, end, "", fmt.Errorf("%s: timed out after %s", shortArgv(e.redact.argv(argv)), timeout)
		case <-poll.C:
			if stop == nil {
				continue
			}
			if ok, why := stop(); ok {
				kill()
				end = time.Now().UTC()
				fmt.Fprintf(logf, "=== %s\n", why)
				return start, end, why, nil
			}
		case <-prog.C:
			if tick != nil {
				tick(time.Since(start))
			}
		}
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func shortArgv(argv []string) string {
	s := shellQuote(argv)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// run executes one run item: fingerprint, the workload, fingerprint, and
// the record of the run.
func (e *Executor) run(ctx context.Context, i int, it Item, st *StepState, logPath string) (*RunRecord, error) {
	runID := e.Plan.RunID(it, st.Attempts)
	dir := filepath.Join("runs", runID)
	abs := filepath.Join(e.Out, dir)
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	resultJSON := filepath.Join(abs, "result.json")
	argv, err := e.Plan.Argv(it, st.Attempts, resultJSON)
	if err != nil {
		return nil, err
	}
	fpStart := e.fingerprint(ctx, runID, "start", argv)
	if err := writeJSON(filepath.Join(abs, "fingerprint-start.json"), fpStart); err != nil {
		return nil, err
	}
	e.Metrics.fingerprint(e.Plan, runID, it, fpStart)
	tick := func(elapsed time.Duration) {
		wa := ""
		if d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device); e.Plan.Exporter != "" && d != nil && err == nil && d.WA1h != nil {
			wa = fmt.Sprintf(" · WA(1h) %.3f", *d.WA1h)
			e.Metrics.setWA(*d.WA1h)
		}
		left := e.timeLeft(i, elapsed)
		e.Metrics.setLeft(left)
		e.printf("[run] %s: %s of %s%s%s", runID, elapsed.Round(time.Second), it.Expected, leftNote(left), wa)
	}
	var fw *fioWatch
	endSpan := func() {}
	if it.Run.Fio != "" {
		if fw, err = fioBefore(it.Run); err != nil {
			return nil, fmt.Errorf("run %s: %w", runID, err)
		}
		endSpan = e.Metrics.runSpan(e.Plan, it, runID)
	}
	start, end, _, err := e.command(ctx, it, st.Attempts, argv, e.env(it, st.Attempts, resultJSON), logPath, 0, nil, tick)
	endSpan()
	if err != nil {
		return nil, err
	}
	fpEnd := e.fingerprint(ctx, runID, "end", argv)
	if err := writeJSON(filepath.Join(abs, "fingerprint-end.json"), fpEnd); err != nil {
		return nil, err
	}
	rec := &RunRecord{Step: it.ID, Run: it.Run.Name, Scenario: it.Run.ScenarioLabel(), RunID: runID,
		Threads: it.Threads, Rep: it.Rep, Attempt: st.Attempts, Start: start, End: end, Dir: dir,
		WA: fingerprint.WA(fpStart, fpEnd), Drift: fingerprint.Diff(fpStart, fpEnd)}
	if fpStart.Drive != nil && fpEnd.Drive != nil {
		rec.HostBytes = fingerprint.Delta(fpStart.Drive.HostWrittenBytes, fpEnd.Drive.HostWrittenBytes)
		rec.MediaBytes = fingerprint.Delta(fpStart.Drive.MediaWrittenBytes, fpEnd.Drive.MediaWrittenBytes)
	}
	if fw != nil {
		if rec.Fio, err = fw.after(abs, dir, start, end); err != nil {
			return nil, fmt.Errorf("run %s: %w", runID, err)
		}
	}
	if err := readResult(resultJSON, rec); err != nil {
		if it.Run.Workload != "" || !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("run %s: result: %w", runID, err)
		}
	}
	return rec, nil
}

// readResult sums loadgen's per-target results into the record.
func readResult(path string, rec *RunRecord) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Results []*runner.Result `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Results) == 0 {
		return fmt.Errorf("%s: no results", path)
	}
	var tps, tpmC, tpmT, p95 float64
	var txn, errs uint64
	for _, r := range doc.Results {
		tps += r.TPS
		tpmC += r.TpmC
		tpmT += r.TpmTotal
		txn += r.Transactions
		errs += r.Errors
		p95 = max(p95, r.All.LatP95Ms)
	}
	rec.TPS, rec.Transactions, rec.Errors, rec.P95Ms = &tps, &txn, &errs, &p95
	if doc.Results[0].NewOrderType != "" {
		rec.TpmC, rec.TpmTotal = &tpmC, &tpmT
	}
	return nil
}

// fingerprint takes a run's fingerprint; what cannot be read is named in
// its Errors, never filled in.
func (e *Executor) fingerprint(ctx context.Context, runID, point string, argv []string) *fingerprint.Fingerprint {
	f := &fingerprint.Fingerprint{Schema: fingerprint.Schema, Run: runID, Point: point, Taken: time.Now().UTC(), Loadgen: e.redact.argv(argv)}
	if e.Plan.Exporter != "" {
		d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
		f.Drive = d
		if err != nil {
			f.Errors = append(f.Errors, "drive: "+err.Error())
		}
	}
	var dirs []string
	for _, t := range e.Plan.Targets {
		m := fingerprint.QueryMySQL(ctx, t.Name, t.DSN)
		f.MySQL = append(f.MySQL, m)
		if m.Error != "" {
			f.Errors = append(f.Errors, "mysql "+t.Name+": "+m.Error)
		}
		if d := m.Variables["datadir"]; d != "" {
			dirs = append(dirs, d)
		}
	}
	h, facts, errs := fingerprint.ReadHost(ctx, e.client(), e.Plan.Exporter, dirs)
	f.Host, f.Tools = h, fingerprint.Tools(facts)
	if e.Plan.usesLoadgen() {
		if v := e.loadgenVersion(ctx); v != "" {
			f.Tools["loadgen"] = v
		}
	}
	f.Errors = append(f.Errors, errs...)
	return f
}
