package rawdev

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/testenv"
)

// TestDeviceGuardRefusesTheRootDisk: this machine's own root filesystem's
// device, through a block node of its number, is refused as mounted by the
// real /sys and /proc — without opening it.
func TestDeviceGuardRefusesTheRootDisk(t *testing.T) {
	var st unix.Stat_t
	require.NoError(t, unix.Stat("/", &st))
	if unix.Major(st.Dev) == 0 {
		testenv.Missing(t, "/ is on no block device here (%d:%d)", unix.Major(st.Dev), unix.Minor(st.Dev))
	}
	node := filepath.Join(t.TempDir(), "root-disk")
	if err := unix.Mknod(node, unix.S_IFBLK|0o600, int(st.Dev)); err != nil {
		testenv.Missing(t, "mknod: %v", err)
	}
	_, err := Default.CheckDevice(node)
	require.ErrorContains(t, err, "is mounted on /")
}

// TestNotABlockDevice: a character device and a directory are refused,
// naming the path.
func TestNotABlockDevice(t *testing.T) {
	for _, p := range []string{"/dev/null", t.TempDir()} {
		_, err := Default.CheckDevice(p)
		require.ErrorContains(t, err, "device "+p+" is not a block device")
	}
}
