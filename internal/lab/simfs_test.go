package lab

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

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
