package simfs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/simfs/fileclass"
)

// TestFdatasyncCounted: fdatasync reaches the backing file (the bytes are
// there) and counts as the class's fsync, as fsync does.
func TestFdatasyncCounted(t *testing.T) {
	f, _, back, mnt := mount(t, 64)
	fd, err := os.OpenFile(filepath.Join(mnt, "ib_logfile0"), os.O_CREATE|os.O_RDWR, 0o644)
	require.NoError(t, err)
	defer fd.Close()
	page := make([]byte, 4096)
	page[0] = 7
	for i := range 3 {
		_, err = fd.WriteAt(page, int64(i)*4096)
		require.NoError(t, err)
		require.NoError(t, unix.Fdatasync(int(fd.Fd())))
	}
	require.NoError(t, fd.Sync())
	st := f.Stats().Classes[fileclass.Redo]
	require.Equal(t, uint64(4), st.Fsyncs, "three fdatasyncs and an fsync")
	require.Equal(t, uint64(3), st.Writes)
	require.Equal(t, uint64(3*4096), st.WrittenBytes)
	got, err := os.ReadFile(filepath.Join(back, "ib_logfile0"))
	require.NoError(t, err)
	require.Len(t, got, 3*4096)
	require.Equal(t, byte(7), got[2*4096])
}

// TestXattrsRefused: extended attributes are refused with EOPNOTSUPP,
// as on a filesystem without them: nothing reaches the backing file, and
// writes work as before (the kernel takes the refusal as no
// security.capability to clear; TestFSGrantsNothingARealFilesystemWouldNot
// checks a write still clears another owner's setuid bit).
func TestXattrsRefused(t *testing.T) {
	f, _, back, mnt := mount(t, 64)
	p := filepath.Join(mnt, "t1.ibd")
	require.NoError(t, os.WriteFile(p, make([]byte, 4096), 0o644))
	for range 2 { // the kernel remembers the first refusal and answers the second itself
		require.ErrorIs(t, unix.Setxattr(p, "user.walab", []byte("x"), 0), unix.EOPNOTSUPP)
		_, err := unix.Getxattr(p, "user.walab", make([]byte, 64))
		require.ErrorIs(t, err, unix.EOPNOTSUPP)
		_, err = unix.Listxattr(p, make([]byte, 64))
		require.ErrorIs(t, err, unix.EOPNOTSUPP)
		require.ErrorIs(t, unix.Removexattr(p, "user.walab"), unix.EOPNOTSUPP)
	}
	n, err := unix.Listxattr(filepath.Join(back, "t1.ibd"), make([]byte, 64))
	require.NoError(t, err)
	require.Zero(t, n, "no attribute reached the backing file")

	fd, err := os.OpenFile(p, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fd.WriteAt(make([]byte, 4096), 4096)
	require.NoError(t, err)
	require.NoError(t, fd.Close())
	require.Equal(t, uint64(2*4096), f.Stats().Classes[fileclass.Data].WrittenBytes)
}
