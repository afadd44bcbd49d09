package fleetstack

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

// TestFleetScriptKill9LeavesNothing: bench/fleet.sh's daemons are started
// by bench/lib.sh's spawn_orphan_safe, and its scratch directory by
// shm_work. A script killed with -9 (no trap runs) takes its daemons
// with it (the kernel's parent-death signal), and the next run removes the
// directory it left in /dev/shm. Before, fleet.sh's six daemons kept
// running and their data kept growing.
func TestFleetScriptKill9LeavesNothing(t *testing.T) {
	testenv.RequireBinary(t, "bash")
	testenv.RequireBinary(t, "setpriv")
	lib, err := filepath.Abs("../../bench/lib.sh")
	require.NoError(t, err)
	shm := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	script := `source "$1"; shm_work fleet "$2"; echo "$work"; spawn_orphan_safe sleep 300; echo "${pids[-1]}" >"$3"; sleep 300`
	run := func() (*exec.Cmd, string) {
		cmd := exec.Command("bash", "-c", script, "fleet", lib, shm, pidFile)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		b := make([]byte, 4096)
		n, _ := out.Read(b)
		return cmd, strings.TrimSpace(string(b[:n]))
	}
	cmd, work := run()
	require.True(t, strings.HasPrefix(work, shm+"/walab-fleet."), work)
	var daemon int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(pidFile)
		daemon, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && daemon > 0
	}, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	require.Eventually(t, func() bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(daemon) + "/stat")
		// gone, or a zombie waiting for init to reap it
		return err != nil || strings.Contains(string(b), ") Z ")
	}, 10*time.Second, 20*time.Millisecond, "the daemon outlived its script's kill -9: %s", func() string { b, _ := os.ReadFile("/proc/" + strconv.Itoa(daemon) + "/status"); return string(b) }())
	_, err = os.Stat(work)
	require.NoError(t, err, "nothing could remove it at kill -9")

	cmd2, work2 := run()
	defer func() { _ = cmd2.Process.Kill(); _ = cmd2.Wait() }()
	require.NotEqual(t, work, work2)
	_, err = os.Stat(work)
	require.True(t, os.IsNotExist(err), "the next run removes the dead run's directory %s", work)
	_, err = os.Stat(work2)
	require.NoError(t, err, "a live run's directory stays")
}
