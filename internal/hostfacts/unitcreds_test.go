package hostfacts

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/testenv"
)

// unitPath is the packaged unit, whose capabilities the exporter has.
const unitPath = "../release/files/walab-exporter.service"

// helperEnv makes the test binary, run again, print the mariadbd facts.
const helperEnv = "WALAB_HOSTFACTS_HELPER"

// TestHelperProcessFacts is not a test: run by TestProcessFactsUnderUnit
// as another user, it prints the facts of the mariadbd processes.
func TestHelperProcessFacts(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("the helper of TestProcessFactsUnderUnit")
	}
	f := Read(context.Background(), Options{Processes: []string{"mariadbd"}, SkipIRQs: true})
	require.NoError(t, json.NewEncoder(os.Stdout).Encode(f.Processes))
}

// TestProcessFactsUnderUnit reads a mariadbd's process facts (what the
// mysqld_cpus check judges) as the packaged service reads them: another
// user than mariadbd's (mysql), with the unit's capabilities as its only
// ones, no new privileges. With them the working directory and the
// memory policy are had; without CAP_SYS_PTRACE the datadir comes from
// mariadbd's command line and the policy, where the kernel refuses it, is
// absent with the privilege it needs named.
func TestProcessFactsUnderUnit(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root: to start mariadbd as user mysql and read as another user")
	}
	for _, b := range []string{"setpriv", "mariadbd", "mariadb-install-db"} {
		testenv.RequireBinary(t, b)
	}
	mysql, err := user.Lookup("mysql")
	if err != nil {
		testenv.Missing(t, "no user mysql (the mariadb-server package makes it)")
	}
	dir := sharedTempDir(t)
	datadir, pid := startMariaDBAs(t, dir, mysql.Username)

	// As the unit reads: its capabilities only (CAP_SYS_ADMIN and
	// CAP_SYS_PTRACE, CAP_SYSLOG): the working directory and the memory policy.
	caps := unitCaps(t)
	require.ElementsMatch(t, []string{"sys_admin", "sys_ptrace", "syslog"}, caps)
	p := processAs(t, dir, pid, caps)
	require.Equal(t, datadir, p.Dir)
	require.Equal(t, "cwd", p.DirFrom)
	require.Equal(t, "default", p.NUMAPolicy)
	require.Empty(t, p.Unread)
	require.NotEmpty(t, p.CPUs)
	// Without ptrace read access (CAP_SYS_ADMIN alone, as the unit had):
	// the datadir from mariadbd's command line; numa_maps is given to
	// CAP_SYS_ADMIN by recent kernels (6.18), not by Debian's 6.12:
	// either the policy or the privilege it needs.
	for _, c := range [][]string{{"sys_admin"}, nil} {
		p = processAs(t, dir, pid, c)
		require.Equal(t, datadir, p.Dir, "caps %v", c)
		require.Equal(t, "cmdline", p.DirFrom)
		if p.NUMAPolicy != "default" {
			require.Empty(t, p.NUMAPolicy)
			require.Contains(t, p.Unread["numa_policy"], "permission denied: needs ptrace read access to the process (CAP_SYS_PTRACE")
		}
	}
	p = processAs(t, dir, pid, nil)
	require.Contains(t, p.Unread["numa_policy"], "CAP_SYS_PTRACE", "without any capability")
}

// processAs is mariadbd pid's facts read as user nobody with exactly caps.
func processAs(t *testing.T, dir string, pid int, caps []string) hostapi.Process {
	for _, q := range factsAs(t, dir, caps) {
		if q.PID == pid {
			return q
		}
	}
	t.Fatalf("mariadbd pid %d not among the facts' processes (caps %v)", pid, caps)
	return hostapi.Process{}
}

// sharedTempDir is a temporary directory other users may enter.
func sharedTempDir(t *testing.T) string {
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		require.NoError(t, os.Chmod(d, 0o755))
	}
	return dir
}

// startMariaDBAs starts mariadbd as the user (not root dropping to it) on
// a datadir of its own, without networking: its datadir and pid.
func startMariaDBAs(t *testing.T, dir, as string) (string, int) {
	data := filepath.Join(dir, "data")
	run := filepath.Join(dir, "run")
	require.NoError(t, os.Mkdir(run, 0o755))
	out, err := exec.Command("chown", as+":", run).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command("mariadb-install-db", "--no-defaults", "--user="+as, "--datadir="+data,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--tmpdir="+run).CombinedOutput()
	require.NoError(t, err, "%s", out)
	sock := filepath.Join(run, "mysqld.sock")
	cmd := exec.Command("setpriv", "--reuid="+as, "--regid="+as, "--init-groups", "--",
		"mariadbd", "--no-defaults", "--datadir="+data, "--skip-networking", "--socket="+sock,
		"--pid-file="+filepath.Join(run, "mysqld.pid"), "--tmpdir="+run, "--log-error="+filepath.Join(run, "error.log"),
		"--innodb-buffer-pool-size=32M", "--innodb-log-file-size=8M")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	require.Eventually(t, func() bool { _, err := os.Stat(sock); return err == nil }, 60*time.Second, 100*time.Millisecond,
		"mariadbd did not make %s", sock)
	return data, cmd.Process.Pid
}

// unitCaps are the unit's ambient capabilities in setpriv's spelling.
func unitCaps(t *testing.T) []string {
	f, err := os.Open(unitPath)
	require.NoError(t, err)
	defer f.Close()
	var caps []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "AmbientCapabilities="); ok {
			for _, c := range strings.Fields(v) {
				caps = append(caps, strings.ToLower(strings.TrimPrefix(c, "CAP_")))
			}
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, caps)
	return caps
}

// factsAs runs this test binary's helper as user nobody with exactly caps.
func factsAs(t *testing.T, dir string, caps []string) []hostapi.Process {
	bin := filepath.Join(dir, "hostfacts.test")
	if _, err := os.Stat(bin); err != nil {
		src, err := os.Open(os.Args[0])
		require.NoError(t, err)
		dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
		require.NoError(t, err)
		_, err = io.Copy(dst, src)
		require.NoError(t, err)
		src.Close()
		require.NoError(t, dst.Close())
	}
	set := "-all"
	for _, c := range caps {
		set += ",+" + c
	}
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		"--inh-caps="+set, "--ambient-caps="+set, "--bounding-set="+set, "--no-new-privs", "--",
		bin, "-test.run=^TestHelperProcessFacts$", "-test.count=1")
	cmd.Dir = "/"
	cmd.Env = []string{helperEnv + "=1", "PATH=/usr/sbin:/usr/bin"}
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var procs []hostapi.Process
	line, _, _ := strings.Cut(string(out), "\n")
	require.NoError(t, json.Unmarshal([]byte(line), &procs), fmt.Sprintf("%s", out))
	return procs
}
