package chaos

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// Remote steps through a real sshd (Debian's openssh-server on a loopback
// port, keys made for the test): the command on the "database host" dies
// with its step, whether the runner is killed with SIGKILL or the step
// times out (issue 42 item 2), and a prefix that reaches ssh through
// timeout keeps the command's quoting (item 3).

// buildWalab builds walab once per test into dir.
func buildWalab(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "walab")
	cmd := exec.Command("go", "build", "-o", bin, "./walab")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// remotePlan is a plan whose reset step runs on: db through prefix: it
// starts a sleep, records its pid, and waits for it.
func remotePlan(t *testing.T, dir, prefix, extra string) string {
	t.Helper()
	plan := filepath.Join(dir, "plan.yml")
	require.NoError(t, os.WriteFile(plan, []byte(`name: remote
hosts: {db: {exec: "`+prefix+`"}}
reset:
  - name: restore
    on: db
    command: 'sleep 300 & echo $! > `+dir+`/remote.pid; wait'
    destructive: true
`+extra+`
runs:
  - {name: r, command: 'true'}
`), 0o644))
	return plan
}

// remotePid waits for the remote step to record its sleep's pid.
func remotePid(t *testing.T, dir string) int {
	t.Helper()
	for range 1200 { // a login can take seconds: the remote shell's rc files
		if b, err := os.ReadFile(filepath.Join(dir, "remote.pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			require.NoError(t, err)
			return pid
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the remote step did not start")
	return 0
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z'
}

// stopped waits (at most 20 s) until pid is stopped: a SIGSTOP is
// delivered asynchronously.
func stopped(pid int) bool {
	for range 400 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if i := strings.LastIndexByte(string(b), ')'); err == nil && i > 0 && len(b) > i+2 && b[i+2] == 'T' {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// gone waits (at most 20 s: a connection's end travels through sshd) for
// pid to be gone.
func gone(pid int) bool {
	for range 400 {
		if !alive(pid) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func TestRemoteStepDiesWithRunner(t *testing.T) {
	sshd := testenv.StartSSHD(t)
	dir := t.TempDir()
	walab := buildWalab(t, dir)
	t.Run("kill -9 of the runner", func(t *testing.T) {
		work := t.TempDir()
		cmd := exec.Command(walab, "experiment", "run", "--out", filepath.Join(work, "out"), remotePlan(t, work, sshd.Prefix(), ""))
		cmd.Stdout, cmd.Stderr = &testenv.Buffer{}, cmd.Stdout
		require.NoError(t, cmd.Start())
		pid := remotePid(t, work)
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		require.True(t, alive(pid))
		require.NoError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		require.True(t, gone(pid), "the remote sleep %d outlived the runner killed with SIGKILL: %s", pid, cmd.Stdout)
	})
	t.Run("step timeout", func(t *testing.T) {
		work := t.TempDir()
		plan := remotePlan(t, work, sshd.Prefix(), "")
		b, _ := os.ReadFile(plan)
		require.NoError(t, os.WriteFile(plan, []byte(strings.Replace(string(b), "destructive: true", "destructive: true\n    timeout: 20s", 1)), 0o644))
		cmd := exec.Command(walab, "experiment", "run", "--out", filepath.Join(work, "out"), plan)
		cmd.Stdout, cmd.Stderr = &testenv.Buffer{}, cmd.Stdout
		require.NoError(t, cmd.Start())
		pid := remotePid(t, work)
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		require.Error(t, cmd.Wait(), "the step times out")
		require.Contains(t, cmd.Stdout.(*testenv.Buffer).String(), "timed out after 20s")
		require.True(t, gone(pid), "the remote sleep %d outlived its step's timeout: %s", pid, cmd.Stdout)
	})
}

// TestRemoteQuotingThroughWrapper: `timeout 60 ssh ...` reaches a remote
// shell that splits the line again: cd DIR && touch ./marker must touch
// DIR/marker, not one in the remote home.
func TestRemoteQuotingThroughWrapper(t *testing.T) {
	sshd := testenv.StartSSHD(t)
	dir := t.TempDir()
	walab := buildWalab(t, dir)
	work := filepath.Join(dir, "data")
	require.NoError(t, os.Mkdir(work, 0o755))
	marker := "walab-chaos-marker-" + strconv.Itoa(os.Getpid())
	home, _ := os.UserHomeDir()
	t.Cleanup(func() { os.Remove(filepath.Join(home, marker)) })
	plan := filepath.Join(dir, "plan.yml")
	require.NoError(t, os.WriteFile(plan, []byte(`name: quoting
hosts: {db: {exec: "timeout 60 `+sshd.Prefix()+`"}}
reset:
  - {name: touch, on: db, command: 'cd `+work+` && touch ./`+marker+`'}
runs:
  - {name: r, command: 'true'}
`), 0o644))
	out, err := exec.Command(walab, "experiment", "run", "--dry-run", "--verbose", plan).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "remote shell runs: /bin/sh -c", "the verbose dry-run shows the line the database host runs")
	out, err = exec.Command(walab, "experiment", "run", "--out", filepath.Join(dir, "out"), plan).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.FileExists(t, filepath.Join(work, marker))
	require.NoFileExists(t, filepath.Join(home, marker))
	logs, _ := filepath.Glob(filepath.Join(dir, "out", "logs", "*touch*.log"))
	require.Len(t, logs, 1)
	b, _ := os.ReadFile(logs[0])
	require.Contains(t, string(b), "remote shell runs: /bin/sh -c", "the step log shows the remote line")
}

// TestResumeKillsRemoteSession: a remote step whose connection is cut in a
// way its guard cannot see (the guard frozen with SIGSTOP, then the
// runner and its ssh killed with SIGKILL) left its command running on
// the database host, and resume ran the next command beside it (issue 42
// item 2). The guard reports the command's session, the runner records it
// in the state, and resume kills it through the same transport before
// anything else, and says so.
func TestResumeKillsRemoteSession(t *testing.T) {
	sshd := testenv.StartSSHD(t)
	dir := t.TempDir()
	walab := buildWalab(t, dir)
	work := t.TempDir()
	out := filepath.Join(work, "out")
	cmd := exec.Command(walab, "experiment", "run", "--out", out, remotePlan(t, work, sshd.Prefix(), ""))
	cmd.Stdout, cmd.Stderr = &testenv.Buffer{}, cmd.Stdout
	require.NoError(t, cmd.Start())
	pid := remotePid(t, work)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	for i := 0; ; i++ {
		b, _ := os.ReadFile(filepath.Join(out, "walab-experiment.json"))
		if strings.Contains(string(b), `"remote_session"`) {
			break
		}
		require.Less(t, i, 400, "the remote session was not recorded: %s", b)
		time.Sleep(50 * time.Millisecond)
	}
	// The sleep's parent is the session leader; its parent the remote
	// guard, whose process group (the login's) holds the watcher too.
	leader := ppid(t, pid)
	guard := ppid(t, leader)
	pgrp := statField(t, guard, 5)
	require.NotEqual(t, statField(t, pid, 6), pgrp, "the command runs in a session of its own")
	require.NoError(t, syscall.Kill(-pgrp, syscall.SIGSTOP))
	t.Cleanup(func() { _ = syscall.Kill(-pgrp, syscall.SIGKILL); _ = syscall.Kill(-pgrp, syscall.SIGCONT) })
	require.True(t, stopped(guard), "the remote guard %d stops before the runner dies", guard)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	time.Sleep(2 * time.Second)
	require.True(t, alive(pid), "the frozen guard cannot end the remote sleep: the case resume must handle")
	res := exec.Command(walab, "experiment", "resume", "--out", out, "--skip", "r/reset/1-restore")
	b, err := res.CombinedOutput()
	require.NoError(t, err, "%s", b)
	require.True(t, gone(pid), "resume left the remote sleep %d running: %s", pid, b)
	require.Regexp(t, `\[resume\] r/reset/1-restore: killed the remote session \d+ on host db \(2 process\(es\)\)`, string(b))
	require.Less(t, strings.Index(string(b), "killed the remote session"), strings.Index(string(b), "[run]"), "before anything else")
}

// statField is field n (1-based, /proc/PID/stat) of pid.
func statField(t *testing.T, pid, n int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	require.NoError(t, err)
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	v, err := strconv.Atoi(f[n-3])
	require.NoError(t, err)
	return v
}

func ppid(t *testing.T, pid int) int { return statField(t, pid, 4) }
