package experiment

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// TestRemoteGuardReportsSession: the guard's line on standard error names
// the command's session, with its leader's start time and the boot id,
// through a transport that hands the line to a shell (sh -c stands for
// ssh's remote shell).
func TestRemoteGuardReportsSession(t *testing.T) {
	line := (&plan.Plan{Hosts: &plan.Hosts{DB: &plan.Host{Exec: "ssh db"}}}).RemoteLine(plan.Item{Step: &plan.Step{Command: "echo out; sleep 0.2", On: plan.HostDB}})
	cmd := exec.Command("sh", "-c", line)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, hold, err := os.Pipe()
	require.NoError(t, err)
	defer hold.Close()
	cmd.Stdin = stdin
	b, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	require.Equal(t, "out\n", string(b), "the guard's report is not in the command's output")
	s, ok := parseRemoteSession("db", stderr.String())
	require.True(t, ok, "%q", stderr.String())
	boot, err := bootID()
	require.NoError(t, err)
	require.Equal(t, boot, s.BootID)
	require.Greater(t, s.SID, 1)
	require.NotZero(t, s.StartTicks)
	_, ok = parseRemoteSession("db", "walab-remote-session 12 x y\n")
	require.False(t, ok, "a malformed line is no session")
}

// TestResumeEndsRemoteSession: a step's recorded remote session that
// still runs is killed through the host's transport before resume does
// anything else; one whose leader's start time differs (a reused pid) is
// left alone.
func TestResumeEndsRemoteSession(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal")
	yml := "name: rs\nhosts: {db: {exec: \"sh -c\", remote_shell: true}}\nruns:\n  - {name: r, command: 'echo $WALAB_STEP >> " + journal + "'}\n"
	e, err := create([]byte(yml), filepath.Join(dir, "out"))
	require.NoError(t, err)
	sleep := exec.Command("sleep", "300")
	sleep.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	require.NoError(t, sleep.Start())
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	other := exec.Command("sleep", "300")
	other.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	require.NoError(t, other.Start())
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	boot, err := bootID()
	require.NoError(t, err)
	ticks, err := startTicks(sleep.Process.Pid)
	require.NoError(t, err)
	oticks, err := startTicks(other.Process.Pid)
	require.NoError(t, err)
	it := e.items[0]
	e.state.Steps[it.ID] = &state.StepState{Status: state.StatusStarted, Remote: &state.RemoteSession{Host: "db", SID: sleep.Process.Pid, StartTicks: ticks, BootID: boot}}
	e.state.Steps[e.items[1].ID] = &state.StepState{Status: state.StatusFailed, Remote: &state.RemoteSession{Host: "db", SID: other.Process.Pid, StartTicks: oticks + 1, BootID: boot}}
	var out strings.Builder
	e.Stdout = &out
	require.NoError(t, e.Execute(context.Background()))
	done := make(chan error, 1)
	go func() { done <- sleep.Wait() }()
	select {
	case err := <-done:
		require.ErrorContains(t, err, "signal: killed")
	case <-time.After(time.Minute):
		t.Fatal("the recorded remote session still runs")
	}
	require.NoError(t, other.Process.Signal(syscall.Signal(0)), "a reused pid's process is left alone")
	require.Contains(t, out.String(), "[resume] "+it.ID+": killed the remote session "+strconv.Itoa(sleep.Process.Pid)+" on host db (1 process(es))")
	require.Contains(t, out.String(), "is gone (reused)")
	require.Less(t, strings.Index(out.String(), "killed the remote session"), strings.Index(out.String(), "[run]"), "before anything else")
	require.Nil(t, e.State().Steps[it.ID].Remote, "forgotten once ended")
}
