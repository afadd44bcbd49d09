package exporterapp

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/testenv"
)

// fuseSuperMagic is statfs's f_type of a FUSE mount.
const fuseSuperMagic = 0x65735546

func isFUSE(t *testing.T, dir string) bool {
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(dir, &st))
	return st.Type == fuseSuperMagic
}

// TestNewMountsSimFS: with sim.fs configured, the exporter mounts the
// filesystem, a write through the mountpoint becomes the drive's host
// bytes and the class counters, and Close (Serve's end: SIGTERM or
// SIGINT in the binary) unmounts it.
func TestNewMountsSimFS(t *testing.T) {
	testenv.RequireFUSE(t)
	dir := t.TempDir()
	back, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	require.NoError(t, os.Mkdir(back, 0o755))
	require.NoError(t, os.Mkdir(mnt, 0o755))
	cfg := filepath.Join(dir, "walab.yml")
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, "wa:\n  persist: false\nsim:\n  name: nvmesim7\n  capacity: 64MiB\n  block_pages: 64\n  spare_factor: 0.1\n  tick: 0s\n  fs:\n    mountpoint: %s\n    backing: %s\n", mnt, back), 0o644))
	a, err := New(Options{TelemetryPath: "/metrics", ConfigFile: cfg, Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}, quiet())
	require.NoError(t, err)
	closed := false
	defer func() {
		if !closed {
			a.Close()
		}
	}()
	require.True(t, isFUSE(t, mnt))

	require.NoError(t, os.WriteFile(filepath.Join(mnt, "ib_logfile0"), make([]byte, 3*4096+10), 0o644))
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	require.Contains(t, body, promql.SimFSWrittenBytes+`{class="redo",device="nvmesim7"} 12298`)
	require.Contains(t, body, promql.SimFSHostWrittenBytes+`{class="redo",device="nvmesim7"} 16384`)
	require.Contains(t, body, promql.SimFSServing+`{device="nvmesim7",mountpoint="`+mnt+`"} 1`)
	got, err := os.ReadFile(filepath.Join(back, "ib_logfile0"))
	require.NoError(t, err)
	require.Len(t, got, 3*4096+10)
	require.Equal(t, uint64(4*4096), a.sims[0].Stats().HostBytes, "the drive's host bytes are the pages written")

	// Re-preconditioning keeps what the files hold and nothing else: the
	// deleted file's pages (TRIMmed) and the never-written ones stay unmapped.
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "gone"), make([]byte, 8*4096), 0o644))
	require.NoError(t, os.Remove(filepath.Join(mnt, "gone")))
	st, err := a.sims[0].Precondition()
	require.NoError(t, err)
	require.Equal(t, uint64(4*4096), st.PreconditionBytes, "the precondition rewrote the one live file's pages")
	require.InDelta(t, 4.0/float64(a.sims[0].LogicalPages()), st.Fill, 1e-12)

	closed = true
	require.NoError(t, a.Close())
	require.False(t, isFUSE(t, mnt), "unmounted when the exporter stops")
}

// TestHostFactsSeeTheSimulatedDrive (issue 55 item 4): the host facts of
// a datadir on the drive's filesystem, which walab's free_space check
// reads, give the simulated drive's size and free space, not the backing
// disk's.
func TestHostFactsSeeTheSimulatedDrive(t *testing.T) {
	testenv.RequireFUSE(t)
	dir := t.TempDir()
	back, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	require.NoError(t, os.Mkdir(back, 0o755))
	require.NoError(t, os.Mkdir(mnt, 0o755))
	cfg := filepath.Join(dir, "walab.yml")
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, "wa:\n  persist: false\nsim:\n  capacity: 64MiB\n  block_pages: 64\n  tick: 0s\n  fs:\n    mountpoint: %s\n    backing: %s\nhost:\n  data_dirs: [%s]\n", mnt, back, filepath.Join(mnt, "data")), 0o644))
	a, err := New(Options{TelemetryPath: "/metrics", ConfigFile: cfg, Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}, quiet())
	require.NoError(t, err)
	defer a.Close()
	require.NoError(t, os.Mkdir(filepath.Join(mnt, "data"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "data", "ibdata1"), make([]byte, 4<<20), 0o644))
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	f, err := hostapi.Get(t.Context(), srv.Client(), srv.URL)
	require.NoError(t, err)
	m, err := f.MountOf(filepath.Join(mnt, "data"))
	require.NoError(t, err)
	require.Equal(t, mnt, m.MountPoint)
	require.NotNil(t, m.SizeBytes)
	require.NotNil(t, m.AvailBytes)
	require.Equal(t, uint64(64<<20), *m.SizeBytes)
	require.Equal(t, uint64(60<<20), *m.AvailBytes)
}
