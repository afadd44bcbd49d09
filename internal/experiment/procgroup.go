package experiment

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// guardScript leads every step's process group. The runner starts it
// with PR_SET_PDEATHSIG = SIGUSR1: PDEATHSIG reaches only the direct child,
// and SIGKILL cannot be caught, so the group leader must be a process that
// catches the signal and kills its whole group. /bin/sh is that process
// (command steps need it anyway; no walab binary must be found again).
// It waits on fd 3 until the runner has recorded the group in the state
// (EOF: the runner died first, nothing runs). The command gets the
// guard's standard input (sh gives a background job /dev/null): /dev/null
// for local steps, a pipe the runner holds for remote ones (transport.go). SIGTERM, sent to the group
// by a graceful stop, reaches the command; the guard only waits for it.
const guardScript = `trap 'kill -KILL 0' USR1
trap : TERM
exec 4<&0 </dev/null
IFS= read -r go <&3 || exit 125
exec 3<&-
"$@" <&4 4<&- &
c=$!
exec 4<&-
while :; do
	wait "$c"; s=$?
	kill -0 "$c" 2>/dev/null || exit "$s"
done`

var subreaper sync.Once

// becomeSubreaper makes the runner the reaper of its steps' orphans: a
// process whose shell exited stays the runner's descendant, so the
// runner can wait for a step's whole group to be gone (wait4(-pgid)).
func becomeSubreaper() {
	subreaper.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// startGroup starts argv under the guard in a new session (no
// controlling terminal: a prompt fails instead of stopping the step on
// SIGTTIN) and process group, records the group in the step's state, and
// only then lets the command run. stdin is the command's standard input
// (nil: /dev/null), stderr its standard error (nil: logf).
func (sp *stepProcess) startGroup(it plan.Item, argv, env []string, logf, stderr *os.File, stdin *os.File) (*exec.Cmd, error) {
	becomeSubreaper()
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer pw.Close()
	cmd := exec.Command("/bin/sh", append([]string{"-c", guardScript, "walab-step"}, argv...)...)
	cmd.Env = append(env, "WALAB_STEP_TOKEN="+token)
	cmd.Stdout, cmd.Stderr = logf, logf
	if stderr != nil {
		cmd.Stderr = stderr
	}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	cmd.ExtraFiles = []*os.File{pr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGUSR1}
	err = cmd.Start()
	pr.Close()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	g := &state.ProcGroup{PGID: cmd.Process.Pid, Token: token}
	g.StartTicks, err = startTicks(g.PGID)
	if err == nil {
		g.BootID, err = bootID()
	}
	if err == nil {
		if st := sp.journal.Steps[it.ID]; st != nil {
			st.Group = g
			err = state.Save(sp.out, sp.journal)
		}
	}
	if err == nil {
		_, err = pw.Write([]byte("go\n"))
	}
	if err != nil {
		_ = syscall.Kill(-g.PGID, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, fmt.Errorf("step %s: recording its process group: %w", it.ID, err)
	}
	return cmd, nil
}

func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b)), err
}

// procStat is what /proc/PID/stat says about a process.
type procStat struct {
	pid, pgrp int
	state     byte
	start     uint64
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if i < 0 || len(f) < 20 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields after the name, want at least 20", pid, len(f))
	}
	ps := procStat{pid: pid, state: f[0][0]}
	if ps.pgrp, err = strconv.Atoi(f[2]); err == nil {
		ps.start, err = strconv.ParseUint(f[19], 10, 64)
	}
	if err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return ps, nil
}

func startTicks(pid int) (uint64, error) {
	ps, err := readStat(pid)
	return ps.start, err
}

// members are the live (not zombie) processes of process group pgid.
func members(pgid int) []procStat {
	ents, _ := os.ReadDir("/proc")
	var out []procStat
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		if ps, err := readStat(pid); err == nil && ps.pgrp == pgid && ps.state != 'Z' && ps.state != 'X' {
			out = append(out, ps)
		}
	}
	return out
}

// reapGroup collects the exit of the group's processes that are the
// runner's children (its own or adopted as subreaper); no wait blocks.
func reapGroup(pgid int) {
	for {
		var ws syscall.WaitStatus
		if pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
			return
		}
	}
}

// waitGroupGone waits until process group pgid has no live process, at
// most timeout; it reports whether the group is gone.
func waitGroupGone(pgid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		reapGroup(pgid)
		if len(members(pgid)) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ErrForeignGroup: processes are in a recorded group but walab cannot tell
// that they are the step's, so it does not kill them.
var ErrForeignGroup = errors.New("process group not verifiably the step's")

// endGroup kills what is left of a recorded step group and waits (at most
// wait) until it is gone; it returns how many processes it killed. A
// group is the step's when its leader is alive with the recorded start
// time, or when, the leader gone, a member carries the step's token (a
// group id is not reused while any member holds it). A group id now
// led by another process, or from before a reboot, is left alone.
func endGroup(g *state.ProcGroup, wait time.Duration) (int, error) {
	if boot, err := bootID(); err != nil || boot != g.BootID {
		return 0, nil
	}
	ms := members(g.PGID)
	if len(ms) == 0 {
		return 0, nil
	}
	ours := false
	if leader, err := readStat(g.PGID); err == nil {
		if leader.start != g.StartTicks {
			return 0, nil // the pid was reused: another process's group
		}
		ours = true
	} else {
		for _, m := range ms {
			env, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(m.pid), "environ"))
			ours = ours || bytes.Contains(env, []byte("\x00WALAB_STEP_TOKEN="+g.Token+"\x00"))
		}
	}
	if !ours {
		return 0, fmt.Errorf("%w: group %d has processes %s, none carries the step's token: check them and end them, then resume",
			ErrForeignGroup, g.PGID, pidList(ms))
	}
	_ = syscall.Kill(-g.PGID, syscall.SIGKILL)
	if !waitGroupGone(g.PGID, wait) {
		return len(ms), fmt.Errorf("process group %d (%s) still running %s after SIGKILL (uninterruptible I/O?): resume again once it is gone",
			g.PGID, pidList(members(g.PGID)), wait)
	}
	return len(ms), nil
}

func pidList(ms []procStat) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = strconv.Itoa(m.pid)
	}
	return strings.Join(s, ", ")
}

// endInterrupted ends the recorded remote sessions (RemoteSession) and
// process groups of interrupted steps: the first thing a resume does, so that nothing of a killed runner's
// step runs beside what the resume starts.
func (e *Executor) endInterrupted() error {
	for _, it := range e.items {
		st := e.state.Steps[it.ID]
		if st != nil && st.Remote != nil {
			if err := endRemote(context.Background(), e.Plan, it, st.Remote, e.printf); err != nil {
				return err
			}
			st.Remote = nil
			if err := state.Save(e.Out, e.state); err != nil {
				return err
			}
		}
		if st == nil || st.Status != state.StatusStarted || st.Group == nil {
			continue
		}
		n, err := endGroup(st.Group, orDefault(e.GroupWait, 2*time.Minute))
		if err != nil {
			return fmt.Errorf("step %s was interrupted: %w", it.ID, err)
		}
		if n > 0 {
			e.printf("[resume] %s: killed %d process(es) left running in its process group %d", it.ID, n, st.Group.PGID)
		}
		st.Group = nil
		if err := state.Save(e.Out, e.state); err != nil {
			return err
		}
	}
	return nil
}

// stopGroup ends a running step: SIGTERM to its group, then, after grace
// (for the leader and for what it leaves), SIGKILL; it returns once the
// leader was reaped (done) and the group is gone.
func stopGroup(pgid int, done <-chan error, grace time.Duration) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
	if !waitGroupGone(pgid, time.Until(deadline)) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		waitGroupGone(pgid, time.Minute)
	}
}

// endOrphans kills what is left of a step's group when its guard was
// killed by a signal: the guard did not wait for the command, which
// would run on unattended. A guard that exited normally leaves what the
// command started on purpose (a daemon) alone, and the log says so.
func endOrphans(cmd *exec.Cmd, log io.Writer) {
	pgid := cmd.Process.Pid
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		waitGroupGone(pgid, time.Minute)
		return
	}
	reapGroup(pgid)
	if ms := members(pgid); len(ms) > 0 {
		fmt.Fprintf(log, "=== left running by the step (process group %d, not stopped by walab): %s\n", pgid, pidList(ms))
	}
}
