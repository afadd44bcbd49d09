package sysfs

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
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
