package experiment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
)

// One step's command: its environment, its own process group (procgroup.go),
// its log, and how it ends: exit, timeout, interrupt or a stop condition.

// env is a step's environment: walab's own and the WALAB_* variables
// that tell the command which experiment, step and run it is.
func (sp *stepProcess) env(it plan.Item, attempt int, resultJSON string) []string {
	env := append(os.Environ(),
		"WALAB_EXPERIMENT="+sp.plan.Name, "WALAB_STEP="+it.ID, "WALAB_PHASE="+it.Phase,
		"WALAB_OUT="+sp.out, "WALAB_EXPORTER="+sp.plan.Exporter, "WALAB_DEVICE="+sp.plan.Device)
	if it.Run != nil {
		env = append(env, "WALAB_RUN="+it.Run.Name, "WALAB_SCENARIO="+it.Run.ScenarioLabel())
	}
	if it.Phase == plan.PhaseRun || it.Phase == plan.PhaseRestart {
		env = append(env, "WALAB_RUN_ID="+sp.plan.RunID(it, attempt), "WALAB_REPETITION="+strconv.Itoa(it.Rep),
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
func (sp *stepProcess) command(ctx context.Context, it plan.Item, attempt int, argv, env []string, logPath string, timeout time.Duration,
	stop func() (bool, string), tick func(elapsed time.Duration)) (start, end time.Time, note string, err error) {
	logf, err := sp.openStepLog(it, attempt, argv, logPath)
	if err != nil {
		return start, end, "", err
	}
	defer logf.Close()
	remote, err := sp.openRemote(it, logf)
	if err != nil {
		return start, end, "", err
	}
	if remote.hold != nil {
		defer remote.hold.Close()
	}
	start = time.Now().UTC()
	// Own session and process group, recorded before it runs, killed as a
	// whole, and killed with the runner (procgroup.go).
	cmd, err := sp.startGroup(it, argv, env, logf, remote.errw, remote.stdin)
	remote.closeChildEnds()
	if err != nil {
		return start, start, "", err
	}
	r := &runningStep{it: it, argv: argv, logPath: logPath, logf: logf, cmd: cmd, remote: remote, start: start, done: make(chan error, 1)}
	go func() { r.done <- cmd.Wait() }()
	end, note, err = sp.await(ctx, r, timeout, stop, tick)
	return start, end, note, err
}

// openStepLog opens a step's log for appending and writes the attempt's
// header: step, attempt, time and the (redacted) command line.
func (sp *stepProcess) openStepLog(it plan.Item, attempt int, argv []string, logPath string) (*os.File, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o640)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logf, "=== %s attempt %d at %s\n$ %s\n", it.ID, attempt, time.Now().UTC().Format(time.RFC3339), shellQuote(sp.redact.argv(argv)))
	return logf, nil
}

// remotePipes are a remote step's standard input, a pipe the runner holds
// open (hold) and never writes: its end tells the remote guard the step is
// over; and its standard error, which passes through the runner, which
// records the remote session the guard reports (remote_session.go). A
// local step has none of them.
type remotePipes struct {
	line              string // what the remote shell runs (plan.RemoteLine)
	stdin, hold, errw *os.File
	sessions          <-chan state.RemoteSession
	errDone           <-chan struct{}
}

// openRemote makes a remote step's pipes and starts watching its standard
// error; for a local step it returns no pipes.
func (sp *stepProcess) openRemote(it plan.Item, logf *os.File) (remotePipes, error) {
	p := remotePipes{line: sp.plan.RemoteLine(it)}
	if p.line == "" {
		return p, nil
	}
	fmt.Fprintf(logf, "remote shell runs: %s\n", sp.redact.text(p.line))
	var err error
	if p.stdin, p.hold, err = os.Pipe(); err != nil {
		return p, err
	}
	errr, w, err := os.Pipe()
	if err != nil {
		p.hold.Close()
		p.stdin.Close()
		return remotePipes{}, err
	}
	p.errw = w
	p.sessions, p.errDone = watchRemoteSession(it.Step.On, errr, logf)
	return p, nil
}

// closeChildEnds closes the runner's copies of the ends the child holds.
func (p remotePipes) closeChildEnds() {
	for _, f := range []*os.File{p.stdin, p.errw} {
		if f != nil {
			f.Close()
		}
	}
}

// runningStep is a started step's command and what its end is judged by.
type runningStep struct {
	it      plan.Item
	argv    []string
	logPath string
	logf    *os.File
	cmd     *exec.Cmd
	remote  remotePipes
	start   time.Time
	done    chan error // cmd.Wait's result
}

// killStep ends the step's process group (procgroup.go).
func (sp *stepProcess) killStep(r *runningStep) {
	stopGroup(r.cmd.Process.Pid, r.done, orDefault(sp.killGrace, 10*time.Second))
}

// await waits for a started step to end: by exit, interrupt, timeout or
// stop, recording the remote sessions it reports meanwhile.
func (sp *stepProcess) await(ctx context.Context, r *runningStep, timeout time.Duration,
	stop func() (bool, string), tick func(elapsed time.Duration)) (end time.Time, note string, err error) {
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	poll := time.NewTicker(orDefault(sp.pollEvery, time.Second))
	defer poll.Stop()
	prog := time.NewTicker(orDefault(sp.progressEvery, 30*time.Second))
	defer prog.Stop()
	for {
		select {
		case s := <-r.remote.sessions:
			if err := recordRemote(sp.out, sp.journal, r.it, &s); err != nil {
				sp.killStep(r)
				return time.Now().UTC(), "", err
			}
		case err := <-r.done:
			end, err := sp.stepExited(r, err)
			return end, "", err
		case <-ctx.Done():
			sp.killStep(r)
			fmt.Fprintf(r.logf, "=== interrupted: %v\n", ctx.Err())
			return time.Now().UTC(), "", ctx.Err()
		case <-deadline:
			sp.killStep(r)
			fmt.Fprintf(r.logf, "=== timeout after %s\n", timeout)
			return time.Now().UTC(), "", fmt.Errorf("%s: timed out after %s", shortArgv(sp.redact.argv(r.argv)), timeout)
		case <-poll.C:
			if stop == nil {
				continue
			}
			if ok, why := stop(); ok {
				sp.killStep(r)
				fmt.Fprintf(r.logf, "=== %s\n", why)
				return time.Now().UTC(), why, nil
			}
		case <-prog.C:
			if tick != nil {
				tick(time.Since(r.start))
			}
		}
	}
}

// stepExited settles a step whose command exited with err: its orphans ended,
// its remote session settled and the exit written to its log.
func (sp *stepProcess) stepExited(r *runningStep, err error) (time.Time, error) {
	endOrphans(r.cmd, r.logf)
	remoteOutputEnd(r.remote.errDone)
	settleRemote(sp.out, sp.journal, r.it, r.remote.sessions, r.cmd.ProcessState.ExitCode())
	end := time.Now().UTC()
	fmt.Fprintf(r.logf, "=== exit: %v after %s\n", exitText(err), end.Sub(r.start).Round(time.Millisecond))
	if err != nil {
		return end, fmt.Errorf("%s: %s%s", shortArgv(sp.redact.argv(r.argv)), exitText(err), sp.failureNote(r, err))
	}
	return end, nil
}

// failureNote says what an exit status alone does not: the last line the
// step printed (a dead MariaDB's "Can't connect"), and for a remote shell
// that exit status 255 is ssh's own when it could not reach the host.
func (sp *stepProcess) failureNote(r *runningStep, err error) string {
	note := ""
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 255 && r.remote.line != "" {
		note = " (ssh exits 255 when it cannot reach or log in to the database host)"
	}
	if l := lastLine(r.logPath); l != "" {
		note += fmt.Sprintf("; its last output: %q", sp.redact.text(l))
	}
	return note
}

// lastLine is the last non-empty line of a step's log before walab's own
// trailer, at most 200 bytes of it.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "remote shell runs: "):
			if strings.HasPrefix(l, "=== ") && strings.Contains(l, " attempt ") {
				return "" // the current attempt printed nothing
			}
			continue
		case len(l) > 200:
			return l[:200] + "..."
		default:
			return l
		}
	}
	return ""
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

// writtenStop returns a condition that is true once the drive's host
// counter moved by capacities × its capacity since now.
func writtenStop(ctx context.Context, client *http.Client, p *plan.Plan, capacities float64) (func() (bool, string), error) {
	d, err := fingerprint.ReadDrive(ctx, client, p.Exporter, p.Device)
	if err != nil && d == nil {
		return nil, fmt.Errorf("written: %w", err)
	}
	if d.HostWrittenBytes == nil || d.CapacityBytes == nil || *d.CapacityBytes <= 0 {
		return nil, fmt.Errorf("written: the exporter reports no host write counter or capacity for %s", p.Device)
	}
	start, want := *d.HostWrittenBytes, capacities**d.CapacityBytes
	return func() (bool, string) {
		d, err := fingerprint.ReadDrive(ctx, client, p.Exporter, p.Device)
		if err != nil && d == nil || d.HostWrittenBytes == nil {
			return false, ""
		}
		done := *d.HostWrittenBytes - start
		return done >= want, fmt.Sprintf("stopped after %.2f drive capacities of host writes (%.0f bytes)", done / *d.CapacityBytes, done)
	}, nil
}
