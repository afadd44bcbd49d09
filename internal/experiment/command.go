package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/walab/walab/internal/fingerprint"
)

// One step's command: its environment, its own process group (procgroup.go),
// its log, and how it ends: exit, timeout, interrupt or a stop condition.

// env is a step's environment: walab's own and the WALAB_* variables
// that tell the command which experiment, step and run it is.
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
	// A remote step's standard input is a pipe the runner holds open and
	// never writes: its end tells the remote guard the step is over.
	// Its standard error passes through the runner, which records the
	// remote session the guard reports (remote_session.go).
	var stdin, hold, errw *os.File
	var sessions <-chan RemoteSession
	var errDone <-chan struct{}
	if line := e.Plan.RemoteLine(it); line != "" {
		fmt.Fprintf(logf, "remote shell runs: %s\n", e.redact.text(line))
		if stdin, hold, err = os.Pipe(); err != nil {
			return start, end, "", err
		}
		defer hold.Close()
		errr, w, err := os.Pipe()
		if err != nil {
			return start, end, "", err
		}
		errw = w
		sessions, errDone = watchRemoteSession(it.Step.On, errr, logf)
	}
	start = time.Now().UTC()
	// Own session and process group, recorded before it runs, killed as a
	// whole, and killed with the runner (procgroup.go).
	cmd, err := e.startGroup(it, argv, env, logf, errw, stdin)
	for _, f := range []*os.File{stdin, errw} {
		if f != nil {
			f.Close()
		}
	}
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
		case s := <-sessions:
			if err := recordRemote(e.Out, e.state, it, &s); err != nil {
				kill()
				return start, time.Now().UTC(), "", err
			}
		case err := <-done:
			endOrphans(cmd, logf)
			remoteOutputEnd(errDone)
			settleRemote(e.Out, e.state, it, sessions, cmd.ProcessState.ExitCode())
			end = time.Now().UTC()
			fmt.Fprintf(logf, "=== exit: %v after %s\n", exitText(err), end.Sub(start).Round(time.Millisecond))
			if err != nil {
				return start, end, "", fmt.Errorf("%s: %s%s", shortArgv(e.redact.argv(argv)), exitText(err), e.failureNote(it, err, logPath))
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

// failureNote says what an exit status alone does not: the last line the
// step printed (a dead MariaDB's "Can't connect"), and for a remote shell
// that exit status 255 is ssh's own when it could not reach the host.
func (e *Executor) failureNote(it Item, err error, logPath string) string {
	note := ""
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 255 && e.Plan.RemoteLine(it) != "" {
		note = " (ssh exits 255 when it cannot reach or log in to the database host)"
	}
	if l := lastLine(logPath); l != "" {
		note += fmt.Sprintf("; its last output: %q", e.redact.text(l))
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
func (e *Executor) writtenStop(ctx context.Context, capacities float64) (func() (bool, string), error) {
	d, err := fingerprint.ReadDrive(ctx, httpClient(e.HTTP), e.Plan.Exporter, e.Plan.Device)
	if err != nil && d == nil {
		return nil, fmt.Errorf("written: %w", err)
	}
	if d.HostWrittenBytes == nil || d.CapacityBytes == nil || *d.CapacityBytes <= 0 {
		return nil, fmt.Errorf("written: the exporter reports no host write counter or capacity for %s", e.Plan.Device)
	}
	start, want := *d.HostWrittenBytes, capacities**d.CapacityBytes
	return func() (bool, string) {
		d, err := fingerprint.ReadDrive(ctx, httpClient(e.HTTP), e.Plan.Exporter, e.Plan.Device)
		if err != nil && d == nil || d.HostWrittenBytes == nil {
			return false, ""
		}
		done := *d.HostWrittenBytes - start
		return done >= want, fmt.Sprintf("stopped after %.2f drive capacities of host writes (%.0f bytes)", done / *d.CapacityBytes, done)
	}, nil
}
