package blockdev_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/blockdev"
	"github.com/walab/walab/internal/blockdev/blockdevtest"
)

// TestTheoreticalWA: full-stripe write amplification per level; seed 001's
// RAID 5 (2+1) is 1.5.
func TestTheoreticalWA(t *testing.T) {
	for _, tc := range []struct {
		md   blockdev.MD
		want float64
		ok   bool
	}{
		{blockdev.MD{Level: "raid5", Disks: 3}, 1.5, true},
		{blockdev.MD{Level: "raid5", Disks: 5}, 1.25, true},
		{blockdev.MD{Level: "raid4", Disks: 3}, 1.5, true},
		{blockdev.MD{Level: "raid6", Disks: 6}, 1.5, true},
		{blockdev.MD{Level: "raid1", Disks: 2}, 2, true},
		{blockdev.MD{Level: "raid1", Disks: 3}, 3, true},
		{blockdev.MD{Level: "raid0", Disks: 4}, 1, true},
		{blockdev.MD{Level: "linear", Disks: 2}, 1, true},
		{blockdev.MD{Level: "raid10", Disks: 4, Layout: 0x102}, 2, true}, // near=2
		{blockdev.MD{Level: "raid10", Disks: 6, Layout: 0x201}, 2, true}, // far=2
		{blockdev.MD{Level: "raid10", Disks: 6, Layout: 0x103}, 3, true}, // near=3
		{blockdev.MD{Level: "raid10", Disks: 4, Layout: 0}, 0, false},
		{blockdev.MD{Level: "raid6", Disks: 2}, 0, false},
		{blockdev.MD{Level: "multipath", Disks: 2}, 0, false},
		{blockdev.MD{Level: "", Disks: 0}, 0, false},
	} {
		got, ok := tc.md.TheoreticalWA()
		require.Equal(t, tc.ok, ok, "%+v", tc.md)
		require.InDelta(t, tc.want, got, 1e-12, "%+v", tc.md)
	}
}

func TestReadMD(t *testing.T) {
	tr := blockdevtest.New(t)
	tr.NVMe("nvme0", 1)
	tr.NVMe("nvme1", 1)
	tr.NVMe("nvme2", 1)
	tr.MD("md0", map[string]string{"level": "raid5", "raid_disks": "3", "chunk_size": "524288", "layout": "2",
		"array_state": "clean", "degraded": "0", "sync_action": "resync", "sync_completed": "1024 / 4096"},
		"nvme0n1", "nvme1n1", "nvme2n1")
	tr.MD("md1", map[string]string{"level": "raid1", "raid_disks": "2 (3)", "array_state": "active",
		"degraded": "1", "sync_action": "idle", "sync_completed": "none"}, "nvme2n1")
	tr.MD("md2", map[string]string{"level": "raid5", "raid_disks": "three", "array_state": "clean"})

	m, err := blockdev.ReadMD(tr.Sys, "md0")
	require.NoError(t, err)
	require.Equal(t, blockdev.MD{Device: "md0", Level: "raid5", Disks: 3, ChunkBytes: 524288, Layout: 2, ArrayState: "clean",
		SyncAction: "resync", SyncDone: 1024, SyncTotal: 4096}, m)
	require.True(t, m.Syncing())

	m, err = blockdev.ReadMD(tr.Sys, "md1")
	require.NoError(t, err)
	require.Equal(t, 2, m.Disks, "during a reshape the new count")
	require.Equal(t, uint64(1), m.Degraded)
	require.False(t, m.Syncing())

	_, err = blockdev.ReadMD(tr.Sys, "md2")
	require.ErrorContains(t, err, "md md2: raid_disks")
	_, err = blockdev.ReadMD(tr.Sys, "md9")
	require.ErrorContains(t, err, "md md9")
}
