package simfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/simfs/fileclass"
	"github.com/walab/walab/internal/testenv"
)

// backingOn mounts a fresh filesystem (mount's -t and -o) on dir/backing
// and returns it, unmounted at cleanup.
func backingOn(t *testing.T, dir string, args ...string) string {
	back := filepath.Join(dir, "backing")
	require.NoError(t, os.Mkdir(back, 0o755))
	out, err := exec.Command("mount", append(args, back)...).CombinedOutput()
	if err != nil {
		testenv.Missing(t, "mount %v: %v: %s", args, err, out)
	}
	t.Cleanup(func() { _ = unix.Unmount(back, unix.MNT_DETACH) })
	return back
}

// mountOver mounts the filesystem with back as its backing directory.
func mountOver(t *testing.T, dir, back string, pages uint32) (*FS, *recorder, string) {
	mnt := filepath.Join(dir, "mnt")
	require.NoError(t, os.Mkdir(mnt, 0o755))
	rec := &recorder{written: map[uint32]string{}}
	f, err := Mount(Options{Backing: back, Mountpoint: mnt, Drive: rec, LogicalPages: pages, PageSize: 4096})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Unmount() })
	return f, rec, mnt
}

// requireCounted: what the filesystem counted and holds is what the
// backing file holds: its written bytes, its pages, no more.
func requireCounted(t *testing.T, f *FS, rec *recorder, class fileclass.Class, bytes uint64) {
	t.Helper()
	pages := (bytes + 4095) / 4096
	st := f.Stats()
	require.Equal(t, bytes, st.Classes[class].WrittenBytes)
	require.Equal(t, pages*4096, st.Classes[class].HostBytes)
	require.Equal(t, pages, uint64(st.LivePages), "pages held")
	require.Equal(t, int(pages), rec.live(), "pages on the drive")
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NoError(t, f.al.Check())
}

// TestFSFailedWriteCountsNothing (issue 54 item 4): a write the backing
// filesystem refuses (EFBIG past ext4's largest file) counts no byte, no
// write and no page, and gives back the page it allocated: a thousand of
// them leave the drive empty.
func TestFSFailedWriteCountsNothing(t *testing.T) {
	testenv.RequireFUSE(t)
	dir := t.TempDir()
	img := filepath.Join(dir, "ext4.img")
	require.NoError(t, os.WriteFile(img, nil, 0o600))
	require.NoError(t, os.Truncate(img, 32<<20))
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		testenv.Missing(t, "mkfs.ext4: %v: %s", err, out)
	}
	back := backingOn(t, dir, "-o", "loop", img)
	f, rec, mnt := mountOver(t, dir, back, 4096)
	fd, err := os.OpenFile(filepath.Join(mnt, "t.ibd"), os.O_CREATE|os.O_RDWR, 0o644)
	require.NoError(t, err)
	defer fd.Close()
	for range 1000 {
		_, err = unix.Pwrite(int(fd.Fd()), []byte{1}, 1<<50)
		require.ErrorIs(t, err, syscall.EFBIG)
	}
	requireCounted(t, f, rec, fileclass.Data, 0)
	require.Zero(t, f.Stats().Classes[fileclass.Data].Writes)
	_, err = fd.WriteAt(make([]byte, 5000), 0)
	require.NoError(t, err)
	requireCounted(t, f, rec, fileclass.Data, 5000)
}

// TestFSBackingFullCountsWhatLanded (issue 54 item 4): a backing
// filesystem that fills before the drive (a 256 KiB tmpfs under a 16 MiB
// drive) ends the write with ENOSPC; the filesystem counts the bytes that
// reached the backing file and holds their pages, no more.
func TestFSBackingFullCountsWhatLanded(t *testing.T) {
	testenv.RequireFUSE(t)
	dir := t.TempDir()
	back := backingOn(t, dir, "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs")
	f, rec, mnt := mountOver(t, dir, back, 4096)
	err := os.WriteFile(filepath.Join(mnt, "binlog.000001"), make([]byte, 1<<20), 0o644)
	require.ErrorIs(t, err, syscall.ENOSPC)
	fi, err := os.Stat(filepath.Join(back, "binlog.000001"))
	require.NoError(t, err)
	require.Less(t, fi.Size(), int64(1<<20))
	requireCounted(t, f, rec, fileclass.Binlog, uint64(fi.Size()))
	held := f.Stats().LivePages

	// An fallocate the backing filesystem refuses reserves nothing either.
	fd, err := os.OpenFile(filepath.Join(mnt, "t.ibd"), os.O_CREATE|os.O_RDWR, 0o644)
	require.NoError(t, err)
	defer fd.Close()
	require.ErrorIs(t, unix.Fallocate(int(fd.Fd()), 0, 0, 1<<20), syscall.ENOSPC)
	require.Equal(t, held, f.Stats().LivePages)
}

// TestFSTrimCountsWrittenPagesOnly (issue 54): pages reserved with
// fallocate and never written were never on the drive; freeing them is no
// TRIM of walab_simfs_trimmed_bytes_total.
func TestFSTrimCountsWrittenPagesOnly(t *testing.T) {
	f, rec, _, mnt := mount(t, 4096)
	p := filepath.Join(mnt, "t.ibd")
	fd, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	require.NoError(t, err)
	require.NoError(t, unix.Fallocate(int(fd.Fd()), 0, 0, 8*4096))
	require.Equal(t, uint32(8), f.Stats().LivePages, "reserved pages are held")
	_, err = fd.WriteAt(make([]byte, 2*4096), 0)
	require.NoError(t, err)
	require.NoError(t, fd.Close())
	require.NoError(t, os.Remove(p))
	require.Zero(t, f.Stats().LivePages)
	require.Equal(t, uint64(2*4096), sumTrimmed(f.Stats()), "the two written pages, not the eight held")
	require.Equal(t, uint64(2), rec.trimmed)
}

// TestFSStatfsIsTheDrive (issue 55 item 4): statfs on the mount (df,
// MariaDB, walab's free_space check) reports the simulated drive: its
// size in its pages, free what no file holds (fallocate's reservations
// count as used); never more free than the backing filesystem can take.
func TestFSStatfsIsTheDrive(t *testing.T) {
	_, _, _, mnt := mount(t, 4096)
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(mnt, &st))
	require.Equal(t, [5]uint64{4096, 4096, 4096, 4096, 4096},
		[5]uint64{uint64(st.Bsize), uint64(st.Frsize), st.Blocks, st.Bfree, st.Bavail})
	fd, err := os.OpenFile(filepath.Join(mnt, "t.ibd"), os.O_CREATE|os.O_RDWR, 0o644)
	require.NoError(t, err)
	defer fd.Close()
	_, err = fd.WriteAt(make([]byte, 10*4096), 0)
	require.NoError(t, err)
	require.NoError(t, unix.Fallocate(int(fd.Fd()), 0, 0, 15*4096))
	require.NoError(t, unix.Statfs(filepath.Join(mnt, "."), &st))
	require.Equal(t, [3]uint64{4096, 4081, 4081}, [3]uint64{st.Blocks, st.Bfree, st.Bavail})

	// A backing filesystem smaller than the drive's free space bounds it.
	testenv.RequireFUSE(t)
	dir := t.TempDir()
	back := backingOn(t, dir, "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs")
	_, _, small := mountOver(t, dir, back, 4096)
	require.NoError(t, unix.Statfs(small, &st))
	require.Equal(t, uint64(4096), st.Blocks)
	require.LessOrEqual(t, st.Bavail, uint64(64))
	require.LessOrEqual(t, st.Bfree, uint64(64))
}
