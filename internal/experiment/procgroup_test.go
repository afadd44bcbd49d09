package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/state"
)

// procState is the state letter of pid from /proc ("" when it is gone);
// a zombie ("Z") is dead.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0]
}

func alive(pid int) bool { st := procState(pid); return st != "" && st != "Z" }

// waitDead waits (at most a minute: only a hung machine takes that long)
// for pid to be gone.
func waitDead(t *testing.T, pid int) bool {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return false
}

// waitStopped waits (at most a minute) until every thread of pid is
// stopped: a SIGSTOP is delivered asynchronously, and a runner thread
// still running could see its guard die and end the group itself.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if allStopped(pid) {
			return
		}
	}
	t.Fatalf("process %d did not stop within a minute of SIGSTOP", pid)
}

func allStopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		s := string(b)
		if st := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0]; st != "T" && st != "t" {
			return false
		}
	}
	return true
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	return pid
}

// held is a runner started on a plan whose destructive step, while hold
// exists, leaves a sleep in the background (pid in sleepPid), touches a
// gate and waits: the shape of a restore (`mariadb < dump.sql`) that
// /bin/sh forks. held returns once the sleep runs.
type held struct {
	cmd                *exec.Cmd
	out, hold, journal string
	sleepPid           int
}

func startHeld(t *testing.T) held {
	dir := t.TempDir()
	h := held{out: filepath.Join(dir, "out"), hold: filepath.Join(dir, "hold"), journal: filepath.Join(dir, "journal")}
	gate, pidfile, yml := filepath.Join(dir, "gate"), filepath.Join(dir, "sleep.pid"), filepath.Join(dir, "plan.yml")
	require.NoError(t, os.WriteFile(yml, []byte(fmt.Sprintf(`name: pg
reset:
  - name: restore
    command: 'echo "$WALAB_STEP" >> %[4]s; if [ -e %[1]s ]; then sleep 300 & echo $! > %[3]s; touch %[2]s; wait; fi'
    destructive: true
runs:
  - {name: r, command: 'echo "$WALAB_STEP" >> %[4]s'}
`, h.hold, gate, pidfile, h.journal)), 0o644))
	require.NoError(t, os.WriteFile(h.hold, nil, 0o644))
	h.cmd = startRunner(t, yml, h.out)
	waitFile(t, gate)
	h.sleepPid = readPid(t, pidfile)
	t.Cleanup(func() { _ = syscall.Kill(h.sleepPid, syscall.SIGKILL) })
	return h
}

// TestRunnerKillEndsStepGroup: kill -9 of the runner while a step's shell
// waits for a forked sleep ends the sleep too; resume --redo then runs the
// step once more, alone.
func TestRunnerKillEndsStepGroup(t *testing.T) {
	h := startHeld(t)
	require.NoError(t, h.cmd.Process.Signal(syscall.SIGKILL))
	_ = h.cmd.Wait()
	require.True(t, waitDead(t, h.sleepPid), "the step's sleep %d outlived the killed runner", h.sleepPid)

	require.NoError(t, os.Remove(h.hold))
	e, err := Open(h.out)
	require.NoError(t, err)
	e.Redo = map[string]bool{"r/reset/1-restore": true}
	require.NoError(t, e.Execute(context.Background()))
	require.Equal(t, map[string]int{"r/reset/1-restore": 2, "r/r1/run": 1}, journalCounts(t, h.journal))
}

// recordedGroup reads the process group the state file records for step.
func recordedGroup(t *testing.T, out, step string) *state.ProcGroup {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, state.StateFile))
	require.NoError(t, err)
	var st state.State
	require.NoError(t, json.Unmarshal(b, &st))
	require.NotNil(t, st.Steps[step], "step %s not in the state", step)
	require.NotNil(t, st.Steps[step].Group, "no process group recorded for %s before it ran", step)
	return st.Steps[step].Group
}

// TestResumeEndsSurvivingGroup: when the step's guard could not end the
// group (it was killed too, or stopped), resume ends the recorded group
// before anything else, also when it then refuses to repeat the step.
func TestResumeEndsSurvivingGroup(t *testing.T) {
	for _, how := range []string{"guard killed", "guard stopped"} {
		t.Run(how, func(t *testing.T) {
			h := startHeld(t)
			cmd, out, sleepPid := h.cmd, h.out, h.sleepPid
			g := recordedGroup(t, out, "r/reset/1-restore")
			require.Equal(t, g.PGID, pgidOf(t, sleepPid), "the sleep runs in the recorded group")
			t.Cleanup(func() { _ = syscall.Kill(-g.PGID, syscall.SIGKILL) })
			// The runner, stopped, cannot see the guard die before its own end.
			require.NoError(t, cmd.Process.Signal(syscall.SIGSTOP))
			waitStopped(t, cmd.Process.Pid)
			if how == "guard killed" {
				require.NoError(t, syscall.Kill(g.PGID, syscall.SIGKILL))
				require.True(t, waitDead(t, g.PGID))
			} else {
				require.NoError(t, syscall.Kill(g.PGID, syscall.SIGSTOP))
				waitStopped(t, g.PGID) // stopped before its PDEATHSIG comes, it cannot end the group
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			_ = cmd.Wait()
			require.True(t, alive(sleepPid), "the sleep survives the runner (the attack resume must handle)")
			require.NoError(t, os.Remove(h.hold))

			e, err := Open(out)
			require.NoError(t, err)
			err = e.Execute(context.Background())
			require.ErrorIs(t, err, ErrInterruptedDestructive)
			require.True(t, waitDead(t, sleepPid), "resume did not end the interrupted step's sleep")

			e, err = Open(out)
			require.NoError(t, err)
			e.Redo = map[string]bool{"r/reset/1-restore": true}
			require.NoError(t, e.Execute(context.Background()))
			require.Equal(t, map[string]int{"r/reset/1-restore": 2, "r/r1/run": 1}, journalCounts(t, h.journal))
		})
	}
}

func pgidOf(t *testing.T, pid int) int {
	t.Helper()
	pg, err := syscall.Getpgid(pid)
	require.NoError(t, err)
	return pg
}

// TestResumeLeavesForeignGroup: a recorded group id now used by another
// process (its leader started at another time, no member carries the
// step's token) is not killed.
func TestResumeLeavesForeignGroup(t *testing.T) {
	other := exec.Command("sleep", "300")
	other.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, other.Start())
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	pid := other.Process.Pid
	boot, err := bootID()
	require.NoError(t, err)
	start, err := startTicks(pid)
	require.NoError(t, err)

	for _, g := range []state.ProcGroup{
		{PGID: pid, StartTicks: start + 1, BootID: boot, Token: "x"}, // pid reused
		{PGID: pid, StartTicks: start, BootID: "another-boot", Token: "x"},
	} {
		ended, err := endGroup(&g, time.Second)
		require.NoError(t, err)
		require.Zero(t, ended)
		require.True(t, alive(pid), "a foreign process (%+v) was killed", g)
	}
}

// TestKilledGuardEndsGroup: a step whose guard is killed (the OOM killer,
// a stray kill -9) fails, and the runner ends the command the guard left.
func TestKilledGuardEndsGroup(t *testing.T) {
	dir := t.TempDir()
	gate, pidfile := filepath.Join(dir, "gate"), filepath.Join(dir, "sleep.pid")
	yml := fmt.Sprintf("name: g\nruns:\n  - {name: r, command: 'sleep 300 & echo $! > %s; touch %s; wait'}\n", pidfile, gate)
	e, err := create([]byte(yml), filepath.Join(dir, "out"))
	require.NoError(t, err)
	res := make(chan error, 1)
	go func() { res <- e.Execute(context.Background()) }()
	waitFile(t, gate)
	sleepPid := readPid(t, pidfile)
	t.Cleanup(func() { _ = syscall.Kill(sleepPid, syscall.SIGKILL) })
	require.NoError(t, syscall.Kill(pgidOf(t, sleepPid), syscall.SIGKILL), "kill the guard, the group's leader")
	require.ErrorContains(t, <-res, "signal: killed")
	require.False(t, alive(sleepPid), "the guard's orphan still runs")
}

// TestDaemonLeftRunningIsNamed: a step that starts a daemon and ends
// normally leaves it running (by design), and its log names it.
func TestDaemonLeftRunningIsNamed(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "daemon.pid")
	yml := fmt.Sprintf("name: d\nruns:\n  - name: r\n    between: [{name: start, command: 'sleep 300 >/dev/null 2>&1 & echo $! > %s'}]\n    command: 'true'\n", pidfile)
	e, err := create([]byte(yml), filepath.Join(dir, "out"))
	require.NoError(t, err)
	require.NoError(t, e.Execute(context.Background()))
	pid := readPid(t, pidfile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	require.True(t, alive(pid), "the daemon was stopped")
	b, err := os.ReadFile(filepath.Join(e.Out, e.State().Steps["r/between/1-start"].Log))
	require.NoError(t, err)
	require.Contains(t, string(b), fmt.Sprintf("left running by the step (process group %d, not stopped by walab): %d", pgidOf(t, pid), pid))
}

// TestInterruptEndsWholeGroup: SIGINT/SIGTERM of the runner (its context
// cancelled) stops the step's whole group, also a process that ignores
// SIGTERM (SIGKILL after the grace), before Execute returns.
func TestInterruptEndsWholeGroup(t *testing.T) {
	dir := t.TempDir()
	gate, pidfile := filepath.Join(dir, "gate"), filepath.Join(dir, "sleep.pid")
	yml := fmt.Sprintf("name: i\nruns:\n  - {name: r, command: '(trap \"\" TERM; exec sleep 300) & echo $! > %s; touch %s; wait'}\n", pidfile, gate)
	e, err := create([]byte(yml), filepath.Join(dir, "out"))
	require.NoError(t, err)
	e.KillGrace = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() { res <- e.Execute(ctx) }()
	waitFile(t, gate)
	sleepPid := readPid(t, pidfile)
	t.Cleanup(func() { _ = syscall.Kill(sleepPid, syscall.SIGKILL) })
	cancel()
	require.ErrorIs(t, <-res, context.Canceled)
	require.False(t, alive(sleepPid), "a process of the interrupted step ignoring SIGTERM outlived it")
	require.Equal(t, state.StatusStarted, e.State().Steps["r/r1/run"].Status)
}
