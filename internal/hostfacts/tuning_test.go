package hostfacts

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/hostapi"
)

// writeTree writes files under root (path → content).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(c), 0o644))
	}
}

// TestTuningFromFixture (issue 47 item 2): the tuning facts seed 000 sets,
// read from /proc and /sys files laid out as the kernel writes them: the
// STEAL feature from debugfs (newer path), the node limit from the command
// line, the sysctls, THP's bracketed modes, the NICs' queue counts
// (seed 000: ethtool -L combined 6) and the page cache.
func TestTuningFromFixture(t *testing.T) {
	proc, sys := t.TempDir(), t.TempDir()
	writeTree(t, proc, map[string]string{
		"cmdline":                       "BOOT_IMAGE=/vmlinuz-5.10.0 root=/dev/sda2 sched_steal_node_limit=4 quiet\n",
		"sys/vm/dirty_ratio":            "40\n",
		"sys/vm/dirty_background_ratio": "10\n",
		"sys/vm/swappiness":             "1\n",
		"meminfo":                       "MemTotal:       16384 kB\nCached:          2048 kB\nSwapCached: 0 kB\n",
	})
	files := map[string]string{
		"kernel/debug/sched/features":            "GENTLE_FAIR_SLEEPERS START_DEBIT NO_NEXT_BUDDY STEAL WAKEUP_PREEMPTION\n",
		"kernel/mm/transparent_hugepage/enabled": "always madvise [never]\n",
		"kernel/mm/transparent_hugepage/defrag":  "always defer defer+madvise [madvise] never\n",
		"class/net/eth0/device/vendor":           "0x19e5\n",
		"class/net/lo/queues/rx-0/rps_cpus":      "0\n",
		"class/net/lo/queues/tx-0/xps_cpus":      "0\n",
	}
	for i := range 6 {
		files["class/net/eth0/queues/rx-"+string(rune('0'+i))+"/rps_cpus"] = "0\n"
		files["class/net/eth0/queues/tx-"+string(rune('0'+i))+"/xps_cpus"] = "0\n"
	}
	writeTree(t, sys, files)
	f := Read(context.Background(), Options{ProcFS: proc, SysFS: sys})
	on, limit, cached := true, "4", uint64(2048<<10)
	require.Equal(t, hostapi.Tuning{
		SchedSteal: &on, StealNodeLimit: &limit,
		Sysctls:    map[string]string{"vm.dirty_ratio": "40", "vm.dirty_background_ratio": "10", "vm.swappiness": "1"},
		THPEnabled: "never", THPDefrag: "madvise",
		NICChannels:    map[string]hostapi.Channels{"eth0": {RX: 6, TX: 6}},
		PageCacheBytes: &cached,
	}, f.Tuning, "lo has no device: not a NIC")

	// The older debugfs path, NO_STEAL; a kernel without STEAL; none of
	// the files at all: absent, not false or 0.
	writeTree(t, sys, map[string]string{"kernel/debug/sched_features": "NO_STEAL TTWU_QUEUE\n"})
	require.NoError(t, os.RemoveAll(filepath.Join(sys, "kernel/debug/sched")))
	off := false
	require.Equal(t, &off, schedSteal(sys))
	writeTree(t, sys, map[string]string{"kernel/debug/sched_features": "TTWU_QUEUE\n"})
	require.Nil(t, schedSteal(sys))
	empty := Read(context.Background(), Options{ProcFS: t.TempDir(), SysFS: t.TempDir()})
	require.Equal(t, hostapi.Tuning{}, empty.Tuning)
	require.Nil(t, cmdlineParam("root=/dev/sda2 quiet", "sched_steal_node_limit"))
	require.Nil(t, meminfoBytes([]byte("Cached: lots kB\n"), "Cached"))
}
