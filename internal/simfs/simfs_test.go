package simfs

import (
	"math"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/simfs/fileclass"
	"github.com/walab/walab/internal/testenv"
)

// recorder is a drive that keeps what it was sent.
type recorder struct {
	mu      sync.Mutex
	written map[uint32]string // LPN -> file name of its last write
	host    uint64            // pages written
	trimmed uint64
	failed  error
}

func (r *recorder) HostWrite(name string, _ fileclass.Class, lpn, pages uint32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for l := lpn; l < lpn+pages; l++ {
		r.written[l] = name
	}
	r.host += uint64(pages)
	return nil
}

func (r *recorder) HostTrim(lpn, pages uint32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for l := lpn; l < lpn+pages; l++ {
		if _, ok := r.written[l]; ok {
			delete(r.written, l)
			r.trimmed++
		}
	}
	return nil
}

func (r *recorder) FeedFailed(err error) { r.mu.Lock(); r.failed = err; r.mu.Unlock() }

func (r *recorder) live() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.written) }

func mount(t *testing.T, pages uint32) (*FS, *recorder, string, string) {
	return mountWith(t, Options{LogicalPages: pages})
}

// mountWith mounts o with a recorder as its drive, 4 KiB pages and its
// own directories.
func mountWith(t *testing.T, o Options) (*FS, *recorder, string, string) {
	testenv.RequireFUSE(t)
	dir := t.TempDir()
	back, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	require.NoError(t, os.Mkdir(back, 0o755))
	require.NoError(t, os.Mkdir(mnt, 0o755))
	rec := &recorder{written: map[uint32]string{}}
	o.Backing, o.Mountpoint, o.Drive, o.PageSize = back, mnt, rec, 4096
	f, err := Mount(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Unmount() })
	return f, rec, back, mnt
}

// TestFSReportsWritesAndFrees drives every operation the drive hears of
// through the kernel: writes (counted exactly, sent as whole pages),
// overwrites in place, fsync, truncate, punch-hole, rename-over and
// unlink (TRIM), and checks the backing file holds the bytes.
func TestFSReportsWritesAndFrees(t *testing.T) {
	f, rec, back, mnt := mount(t, 4096)
	p := filepath.Join(mnt, "t1.ibd")
	fd, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	require.NoError(t, err)
	buf := make([]byte, 10000)
	for i := range buf {
		buf[i] = byte(i)
	}
	_, err = fd.WriteAt(buf, 0)
	require.NoError(t, err)
	_, err = fd.WriteAt(buf[:100], 5000) // page 1 again: in place
	require.NoError(t, err)
	require.NoError(t, fd.Sync())
	st := f.Stats().Classes[fileclass.Data]
	require.Equal(t, uint64(10100), st.WrittenBytes)
	require.Equal(t, uint64(4*4096), st.HostBytes, "pages 0-2, then page 1 again")
	require.Equal(t, uint64(1), st.Fsyncs)
	require.Equal(t, 3, rec.live())
	got, err := os.ReadFile(filepath.Join(back, "t1.ibd"))
	require.NoError(t, err)
	require.Equal(t, buf[:5000], got[:5000])

	require.NoError(t, fd.Truncate(4096))
	require.Equal(t, 1, rec.live(), "truncate to one page trims pages 1-2")
	_, err = fd.WriteAt(make([]byte, 8*4096), 0)
	require.NoError(t, err)
	require.NoError(t, unix.Fallocate(int(fd.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 4096, 2*4096))
	require.Equal(t, 6, rec.live(), "the punched pages 1-2 are trimmed")
	require.NoError(t, fd.Close())

	require.NoError(t, os.WriteFile(filepath.Join(mnt, "t2.ibd"), make([]byte, 4096), 0o644))
	require.NoError(t, os.Rename(filepath.Join(mnt, "t2.ibd"), p))
	require.Equal(t, 1, rec.live(), "rename over t1.ibd frees its 6 pages")
	require.NoError(t, os.Remove(p))
	require.Equal(t, 0, rec.live())
	require.Equal(t, uint64(0), uint64(f.Stats().LivePages))
	require.Equal(t, rec.trimmed*4096, sumTrimmed(f.Stats()))
}

func sumTrimmed(s Stats) (n uint64) {
	for _, c := range s.Classes {
		n += c.TrimmedBytes
	}
	return n
}

// TestFSNoDiscard: with NoDiscard an unlink frees the file's pages for the
// filesystem (a second file as large fits the drive) but sends no TRIM:
// the drive keeps them valid until they are written again.
func TestFSNoDiscard(t *testing.T) {
	f, rec, _, mnt := mountWith(t, Options{LogicalPages: 16, NoDiscard: true})
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "binlog.000001"), make([]byte, 12*4096), 0o644))
	require.NoError(t, os.Remove(filepath.Join(mnt, "binlog.000001")))
	require.Zero(t, f.Stats().LivePages, "the filesystem freed the pages")
	require.Equal(t, 12, rec.live(), "the drive was not told")
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "binlog.000002"), make([]byte, 12*4096), 0o644))
	require.Equal(t, 16, rec.live(), "8 of the 12 pages are reused, overwritten on the drive; 4 stay valid there")
	require.Zero(t, rec.trimmed)
	require.Zero(t, sumTrimmed(f.Stats()))
}

// TestFSFullDriveIsENOSPC: a write needing more pages than are free fails
// with ENOSPC and leaves the backing file as it was.
func TestFSFullDriveIsENOSPC(t *testing.T) {
	_, rec, back, mnt := mount(t, 16)
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "a"), make([]byte, 12*4096), 0o644))
	err := os.WriteFile(filepath.Join(mnt, "b"), make([]byte, 8*4096), 0o644)
	require.ErrorIs(t, err, syscall.ENOSPC)
	fi, err := os.Stat(filepath.Join(back, "b"))
	require.NoError(t, err)
	require.Zero(t, fi.Size())
	require.Equal(t, 12, rec.live())
}

// TestFSDeathMarksTheDrive: when the mount ends without Unmount (here a
// lazy unmount from outside), the drive is told its feed failed.
func TestFSDeathMarksTheDrive(t *testing.T) {
	f, rec, _, mnt := mount(t, 4096)
	require.NoError(t, unix.Unmount(mnt, unix.MNT_DETACH))
	select {
	case <-f.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the filesystem did not notice its unmount")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.ErrorContains(t, rec.failed, "stopped serving")
	require.False(t, f.Stats().Serving)
}

// TestFSAdoptsExistingFiles: files already in the backing directory are
// laid out and written to the drive once at mount.
func TestFSAdoptsExistingFiles(t *testing.T) {
	testenv.RequireFUSE(t)
	dir := t.TempDir()
	back, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	require.NoError(t, os.MkdirAll(filepath.Join(back, "db"), 0o755))
	require.NoError(t, os.Mkdir(mnt, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(back, "db", "x.ibd"), make([]byte, 5*4096+1), 0o644))
	rec := &recorder{written: map[uint32]string{}}
	f, err := Mount(Options{Backing: back, Mountpoint: mnt, Drive: rec, LogicalPages: 4096, PageSize: 4096})
	require.NoError(t, err)
	defer f.Unmount()
	require.Equal(t, 6, rec.live())
	require.Equal(t, uint64(6*4096), f.Stats().Classes[fileclass.Data].HostBytes)
	require.Zero(t, f.Stats().Classes[fileclass.Data].WrittenBytes)
}

// TestCollectorGoesAbsentWhenStopped: the class counters are served while
// the filesystem serves and vanish (serving 0) once it stops.
func TestCollectorGoesAbsentWhenStopped(t *testing.T) {
	f, _, _, mnt := mount(t, 4096)
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "ib_logfile0"), make([]byte, 512), 0o644))
	reg := prometheus.NewRegistry()
	reg.MustRegister(f.Collector("nvmesim0"))
	require.Equal(t, 512.0, gather(t, reg, promql.SimFSWrittenBytes, "redo"))
	require.Equal(t, 4096.0, gather(t, reg, promql.SimFSHostWrittenBytes, "redo"))
	require.Equal(t, 1.0, gather(t, reg, promql.SimFSServing, ""))
	require.NoError(t, f.Unmount())
	require.Equal(t, 0.0, gather(t, reg, promql.SimFSServing, ""))
	require.True(t, math.IsNaN(gather(t, reg, promql.SimFSWrittenBytes, "redo")), "absent once stopped")
}

// gather is the value of name{class} (any class when ""), NaN when absent.
func gather(t *testing.T, reg *prometheus.Registry, name, class string) float64 {
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if class == "" || (l.GetName() == "class" && l.GetValue() == class) {
					if m.GetCounter() != nil {
						return m.GetCounter().GetValue()
					}
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return math.NaN()
}
