package placement

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRunningFixture(t *testing.T) {
	proc := t.TempDir()
	put(t, filepath.Join(proc, "100/comm"), "irqbalance\n")
	put(t, filepath.Join(proc, "100/cmdline"), "/usr/sbin/irqbalance\x00--foreground\x00")
	put(t, filepath.Join(proc, "200/comm"), "python3\n")
	put(t, filepath.Join(proc, "200/cmdline"), "/opt/astream/astream\x00-c\x00/etc/astream.conf\x00")
	put(t, filepath.Join(proc, "300/comm"), "a-very-long-dae\n")
	put(t, filepath.Join(proc, "300/cmdline"), "")
	put(t, filepath.Join(proc, "self/comm"), "not a pid dir\n")
	pidFile := filepath.Join(t.TempDir(), "astream.pid")

	for _, tc := range []struct {
		name, proc, pidFile string
		want                bool
	}{
		{"comm", "irqbalance", "", true},
		{"argv0 base name", "astream", "", true},
		{"comm truncated to 15 bytes", "a-very-long-daemon", "", true},
		{"absent", "placementd", "", false},
		{"absent pid file falls back to a scan", "astream", pidFile, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Running(proc, tc.proc, tc.pidFile)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}

	put(t, pidFile, "200\n")
	ok, err := Running(proc, "astream", pidFile)
	require.NoError(t, err)
	require.True(t, ok)
	put(t, pidFile, "garbage\n")
	_, err = Running(proc, "astream", pidFile)
	require.ErrorContains(t, err, "is not a pid")
	_, err = Running(proc, "", "")
	require.ErrorContains(t, err, "empty")
	_, err = Running(filepath.Join(proc, "missing"), "x", "")
	require.Error(t, err)
}

// TestRunningRealProcess runs a copy of sleep named astream and finds it in
// the machine's own /proc, then checks it is gone after it exits.
func TestRunningRealProcess(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	b, err := os.ReadFile(sleep)
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "astream")
	require.NoError(t, os.WriteFile(bin, b, 0o755))

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "60")
	require.NoError(t, cmd.Start())
	pidFile := filepath.Join(t.TempDir(), "astream.pid")
	require.NoError(t, os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644))

	ok, err := Running("/proc", "astream", "")
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = Running("/proc", "astream", pidFile)
	require.NoError(t, err)
	require.True(t, ok)

	cancel()
	_ = cmd.Wait()
	// The pid file is now stale; the pid is gone (or reused by something else).
	require.Eventually(t, func() bool {
		ok, err := Running("/proc", "astream", pidFile)
		return err == nil && !ok
	}, 5*time.Second, 20*time.Millisecond)
}
