package blockdev_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/blockdev"
	"github.com/walab/walab/internal/blockdev/blockdevtest"
)

// stackTree: seed 001's RAID 5 over three NVMe namespaces (the third
// through a partition), a dm-linear device on the array, and a disk of the
// host that nothing measured uses.
func stackTree(t *testing.T) *blockdevtest.Tree {
	tr := blockdevtest.New(t)
	tr.NVMe("nvme0", 1)
	tr.NVMe("nvme1", 1)
	tr.NVMe("nvme2", 1, 2)
	tr.Partition("nvme2n1", "nvme2n1p1")
	tr.Partition("nvme2n1", "nvme2n1p2") // holds nothing
	tr.MD("md0", map[string]string{"level": "raid5", "raid_disks": "3"}, "nvme0n1", "nvme1n1", "nvme2n1p1")
	tr.DM("dm-0", "vg0-mysql", "md0")
	tr.Disk("vda")
	return tr
}

func TestDiscoverWalksUpTheStack(t *testing.T) {
	tr := stackTree(t)
	devs, omitted, err := blockdev.Discover(tr.Sys, []blockdev.Root{{Name: "nvme0n1", Controller: "nvme0"}, {Name: "nvme1n1"}, {Name: "nvme2n1"}, {Name: "nvme2n2"}}, 64)
	require.NoError(t, err)
	require.Zero(t, omitted)
	require.Equal(t, []blockdev.Device{
		{Name: "nvme0n1", Kind: blockdev.KindNVMe, Controller: "nvme0"},
		{Name: "nvme1n1", Kind: blockdev.KindNVMe, Controller: "nvme1"},
		{Name: "nvme2n1", Kind: blockdev.KindNVMe, Controller: "nvme2"},
		{Name: "nvme2n2", Kind: blockdev.KindNVMe, Controller: "nvme2"},
		{Name: "md0", Kind: blockdev.KindMD, Slaves: []string{"nvme0n1", "nvme1n1", "nvme2n1p1"}},
		{Name: "nvme2n1p1", Kind: blockdev.KindPartition, Controller: "nvme2", Parent: "nvme2n1"},
		{Name: "dm-0", Kind: blockdev.KindDM, Slaves: []string{"md0"}, DMName: "vg0-mysql"},
	}, devs)
}

func TestDiscoverBoundAndMissingRoot(t *testing.T) {
	tr := stackTree(t)
	devs, omitted, err := blockdev.Discover(tr.Sys, []blockdev.Root{{Name: "nvme0n1"}, {Name: "nvme9n1"}, {Name: "vda"}}, 2)
	require.ErrorContains(t, err, "block device nvme9n1")
	require.Len(t, devs, 2)
	require.Equal(t, "nvme0n1", devs[0].Name)
	require.Equal(t, blockdev.Device{Name: "vda", Kind: blockdev.KindOther}, devs[1])
	require.Equal(t, 5, omitted, "md0, dm-0 and the other members of md0 are over the bound")

	_, _, err = blockdev.Discover(tr.Sys, []blockdev.Root{{Name: "../../etc"}}, 2)
	require.ErrorContains(t, err, `"../../etc"`)
}

// TestDiscoverDown: a filesystem on dm-0 (LVM over md0 over NVMe) names
// its disks too: a root with Down walks to the slaves and a partition's
// disk, and from each of them up again.
func TestDiscoverDown(t *testing.T) {
	tr := stackTree(t)
	tr.Number("dm-0", 253, 0)
	name, err := blockdev.DeviceOf(tr.Sys, 253, 0)
	require.NoError(t, err)
	require.Equal(t, "dm-0", name)
	_, err = blockdev.DeviceOf(tr.Sys, 0, 42)
	require.ErrorContains(t, err, "0:42 is not a block device")

	devs, _, err := blockdev.Discover(tr.Sys, []blockdev.Root{{Name: name, Down: true}}, 64)
	require.NoError(t, err)
	var names []string
	for _, d := range devs {
		names = append(names, d.Name)
	}
	require.Equal(t, []string{"dm-0", "md0", "nvme0n1", "nvme1n1", "nvme2n1p1", "nvme2n1"}, names)
}

// TestDiscoverCompletesArrays: an array found from one member brings all
// of its members (and a dm device on it), so the sum over members is whole;
// Leaves walks dm-0 down to the NVMe namespaces and partition.
func TestDiscoverCompletesArrays(t *testing.T) {
	tr := stackTree(t)
	devs, _, err := blockdev.Discover(tr.Sys, []blockdev.Root{{Name: "nvme0n1"}}, 64)
	require.NoError(t, err)
	var names []string
	for _, d := range devs {
		names = append(names, d.Name)
	}
	require.Equal(t, []string{"nvme0n1", "md0", "dm-0", "nvme1n1", "nvme2n1p1", "nvme2n1"}, names)
	var leaves []string
	for _, d := range blockdev.Leaves(devs, "dm-0") {
		leaves = append(leaves, d.Name+"@"+d.Controller)
	}
	require.Equal(t, []string{"nvme0n1@nvme0", "nvme1n1@nvme1", "nvme2n1p1@nvme2"}, leaves)
	require.Equal(t, "nvme0n1", blockdev.Leaves(devs, "nvme0n1")[0].Name)
	require.Empty(t, blockdev.Leaves(devs, "sdq"))
}
