package lab

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSimFSDirsArePrivate: the lab's drive lives in out/simfs, mode 0700
// and the lab's user's, even when the work directory is readable by all
// (make run's in $TMPDIR): no other user reaches the mountpoint, the
// backing files or the private mariadbd's socket, and the exporter's mount
// accepts the backing directory (simfs refuses one others can reach).
func TestSimFSDirsArePrivate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "lab")
	require.NoError(t, os.Mkdir(out, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(out, "simfs", "mnt"), 0o755)) // an earlier lab's, too open
	_, mnt, _, err := SimFS(out)
	require.NoError(t, err)
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(filepath.Join(out, "simfs"), &st))
	require.Equal(t, uint32(0o700), st.Mode&0o7777)
	require.Equal(t, uint32(os.Geteuid()), st.Uid)
	require.Equal(t, filepath.Join(out, "simfs", "mnt"), mnt)
	for _, d := range []string{"mnt", "backing", "mariadb"} {
		require.NoError(t, syscall.Stat(filepath.Join(out, "simfs", d), &st))
		require.Equal(t, uint32(0o700), st.Mode&0o7777, d)
	}
}

// TestKilledLabStopsTheExporterGently: a walab lab killed with -9 sends
// its exporter SIGTERM (Pdeathsig), on which the exporter unmounts the
// drive's filesystem, so no dead mount stays in the work directory (issue
// 54). The lab and the exporter are this test binary run again.
func TestKilledLabStopsTheExporterGently(t *testing.T) {
	dir := t.TempDir()
	lab := exec.Command(os.Args[0], "-test.run=^TestHelperLab$")
	lab.Env = append(os.Environ(), "WALAB_LAB_HELPER_DIR="+dir)
	require.NoError(t, lab.Start())
	ready := filepath.Join(dir, "ready")
	require.Eventually(t, func() bool { _, err := os.Stat(ready); return err == nil }, 60*time.Second, 50*time.Millisecond)
	require.NoError(t, lab.Process.Kill())
	_ = lab.Wait()
	got := filepath.Join(dir, "signal")
	require.Eventually(t, func() bool { _, err := os.Stat(got); return err == nil }, 30*time.Second, 50*time.Millisecond,
		"the exporter was not told its lab died, or not with a signal it can handle")
	b, err := os.ReadFile(got)
	require.NoError(t, err)
	require.Equal(t, syscall.SIGTERM.String(), string(b))
}

// TestHelperLab is TestKilledLabStopsTheExporterGently's lab: it starts
// its exporter as the lab does and waits to be killed.
func TestHelperLab(t *testing.T) {
	dir := os.Getenv("WALAB_LAB_HELPER_DIR")
	if dir == "" || os.Getenv("WALAB_EXPORTER_HELPER") != "" {
		t.Skip("run by TestKilledLabStopsTheExporterGently")
	}
	t.Setenv("WALAB_EXPORTER_HELPER", "1")
	_, err := start(dir, "exporter", os.Args[0], "-test.run=^TestHelperExporter$")
	require.NoError(t, err)
	select {}
}

// TestHelperExporter is the exporter: it writes down the signal it gets.
func TestHelperExporter(t *testing.T) {
	dir := os.Getenv("WALAB_LAB_HELPER_DIR")
	if dir == "" || os.Getenv("WALAB_EXPORTER_HELPER") == "" {
		t.Skip("run by TestKilledLabStopsTheExporterGently")
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644))
	sig := <-ch
	require.NoError(t, os.WriteFile(filepath.Join(dir, "signal"), []byte(sig.String()), 0o644))
}
