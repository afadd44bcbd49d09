package sysfs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/safefile"
)

func TestDiscoverFixtureTree(t *testing.T) {
	got, err := Discover(filepath.Join("testdata", "sys"))
	require.NoError(t, err)
	want := []Controller{
		{
			Name: "nvme0", Model: "SAMPLE NVME 3.84TB", Serial: "S5XYNA0R100001", Firmware: "GDC5602Q",
			NUMANode: 1, PCIAddress: "0000:3b:00.0",
			Namespaces: []Namespace{{NSID: 1, Block: "nvme0n1"}, {NSID: 2, Block: "nvme0n2"}},
		},
		{
			// Fabrics controller: no PCI address, no numa_node, no firmware file, no nsid file.
			Name: "nvme2", Model: "Linux", Serial: "fab", NUMANode: -1,
			Namespaces: []Namespace{{NSID: 1, Block: "nvme2n1"}},
		},
		{
			// Multipath per-path node nvme10c10n1 belongs to block device nvme10n1; numa_node -1 stays unknown.
			Name: "nvme10", Model: "HWE52P434T0L005N", Serial: "SER10", Firmware: "3.10",
			NUMANode: -1, PCIAddress: "0000:5e:00.0",
			Namespaces: []Namespace{{NSID: 1, Block: "nvme10n1"}},
		},
	}
	require.Equal(t, want, got)
}

func TestDiscoverWithoutNVMeClass(t *testing.T) {
	got, err := Discover(t.TempDir())
	require.NoError(t, err)
	require.Empty(t, got)
}

func TestReadUnknownController(t *testing.T) {
	_, err := Read(filepath.Join("testdata", "sys"), "nvme7")
	require.ErrorContains(t, err, "controller nvme7")
}

// TestIdentityFilesAreNotFollowed: model/serial/firmware_rev become labels;
// a symlink to a root-only file used to export its contents (a DSN
// password was), a FIFO hung discovery. In real sysfs these attributes are
// regular files of at most a page, so anything else reads as "".
func TestIdentityFilesAreNotFollowed(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("dsn=root:hunter2@tcp(db)/"), 0o600))
	root := t.TempDir()
	dir := filepath.Join(root, "class", "nvme", "nvme0")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "model")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "serial"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "firmware_rev"), []byte(strings.Repeat("F", 5000)), 0o644))

	done := make(chan struct{})
	var got []Controller
	var err error
	go func() { defer close(done); got, err = Discover(root) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("discovery blocked on a FIFO attribute")
	}
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Empty(t, got[0].Model, "symlinked model not followed")
	require.Empty(t, got[0].Serial, "FIFO serial not read")
	require.Empty(t, got[0].Firmware, "attribute over one page refused")

	require.NoError(t, os.Remove(filepath.Join(dir, "firmware_rev")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "firmware_rev"), []byte(strings.Repeat("F", 100)+"\n"), 0o644))
	got, err = Discover(root)
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("F", safefile.MaxText), got[0].Firmware, "length-capped")
}
