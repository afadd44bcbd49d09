package exporterapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/testenv"
)

// The exporter process TestKillFilesystemProcess kills: this test binary
// run again with these variables set.
const (
	envExporterConfig = "WALAB_SIMFS_EXPORTER_CONFIG"
	envExporterAddr   = "WALAB_SIMFS_EXPORTER_ADDR"
)

// TestSimFSExporterProcess is not a test: it is the exporter process of
// TestKillFilesystemProcess (Serve with the simulated drive's filesystem).
func TestSimFSExporterProcess(t *testing.T) {
	cfg := os.Getenv(envExporterConfig)
	if cfg == "" {
		t.Skip("the exporter process of TestKillFilesystemProcess")
	}
	addrs, empty := []string{os.Getenv(envExporterAddr)}, ""
	o := Options{TelemetryPath: "/metrics", ConfigFile: cfg, Web: &web.FlagConfig{WebListenAddresses: &addrs, WebConfigFile: &empty},
		Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}
	require.NoError(t, Serve(context.Background(), o, quiet()))
}

// TestKillFilesystemProcess (issue 45, done-when 3): kill -9 of the
// exporter that serves the filesystem while mariadbd runs on it. The
// metrics are gone with the process (no WA from a drive that no longer
// sees the writes), mariadbd's next write fails (ENOTCONN: error 107 in
// its log, the client loses the statement), and the row it committed
// (redo fsynced, innodb_flush_log_at_trx_commit=1) before the kill is in
// the backing directory: a mariadbd started on it directly reads it.
func TestKillFilesystemProcess(t *testing.T) {
	testenv.RequireFUSE(t)
	dir := t.TempDir()
	back, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	require.NoError(t, os.Mkdir(back, 0o755))
	require.NoError(t, os.Mkdir(mnt, 0o755))
	cfg := filepath.Join(dir, "walab.yml")
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, "wa:\n  persist: false\nsim:\n  capacity: 2GiB\n  fs:\n    mountpoint: %s\n    backing: %s\n", mnt, back), 0o644))
	addr := "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t))
	exp := exec.Command(os.Args[0], "-test.run=^TestSimFSExporterProcess$", "-test.count=1")
	exp.Env = append(os.Environ(), envExporterConfig+"="+cfg, envExporterAddr+"="+addr)
	exp.Stderr = os.Stderr
	require.NoError(t, exp.Start())
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = exp.Process.Kill()
			_, _ = exp.Process.Wait()
		}
		_ = unix.Unmount(mnt, unix.MNT_DETACH)
	})
	metrics := func() (string, error) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	require.Eventually(t, func() bool {
		body, err := metrics()
		return err == nil && strings.Contains(body, "walab_simfs_serving{")
	}, 60*time.Second, 100*time.Millisecond, "the exporter serves the mount")

	in := testenv.StartMariaDBAt(t, filepath.Join(mnt, "data"))
	db, _ := in.Open("simfs_kill")
	_, err := db.Exec("CREATE TABLE t (id INT PRIMARY KEY, note VARCHAR(40)) ENGINE=InnoDB")
	require.NoError(t, err)
	_, err = db.Exec("INSERT INTO t VALUES (1, 'committed before the kill')") // autocommit: redo fsynced
	require.NoError(t, err)

	require.NoError(t, exp.Process.Signal(syscall.SIGKILL))
	_, _ = exp.Process.Wait()
	killed = true
	_, err = metrics()
	require.Error(t, err, "no metrics once the filesystem's process is gone")

	db.SetConnMaxLifetime(time.Second)
	_, err = db.Exec("INSERT INTO t VALUES (2, 'after the kill')")
	require.Error(t, err, "mariadbd cannot commit on a dead mount")
	log, _ := os.ReadFile(in.ErrorLog())
	t.Logf("mariadbd error log after the kill:\n%s", tail(string(log), 1500))
	require.Regexp(t, `operating system error 107|Transport endpoint is not connected`, string(log))

	in.Kill()
	// The next mount of any exporter detaches a dead mount (simfs's
	// detachDead): one in another test process may have done it already.
	if err := unix.Unmount(mnt, unix.MNT_DETACH); !errors.Is(err, unix.EINVAL) {
		require.NoError(t, err)
	}
	again := testenv.StartMariaDBAt(t, filepath.Join(back, "data"))
	db2, _ := again.Open("")
	var note string
	require.NoError(t, db2.QueryRow("SELECT note FROM simfs_kill.t WHERE id = 1").Scan(&note))
	require.Equal(t, "committed before the kill", note)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
