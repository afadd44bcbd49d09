package irq

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
}

func TestTopology(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"sys/devices/system/node/node0/cpulist": "0-1\n",
		"sys/devices/system/node/node1/cpulist": "2,3\n",
		"sys/devices/system/node/possible":      "0-1\n",
		"sys/class/nvme/nvme0/device/numa_node": "1\n",
		"sys/class/net/eth0/device/msi_irqs/70": "msix\n",
		"sys/class/net/eth0/device/msi_irqs/71": "msix\n",
		"proc/irq/60/smp_affinity_list":         "0-3\n",
		"proc/irq/60/effective_affinity_list":   "2\n",
		"proc/irq/61/smp_affinity_list":         "1\n",
		"proc/irq/62/smp_affinity_list":         "1-x\n",
		"sys/class/nvme/nvme1/device/numa_node": "one\n",
		"sys/devices/system/node/node9/cpulist": "",
	})
	nodes, err := CPUNodes(filepath.Join(root, "sys"))
	require.NoError(t, err)
	require.Equal(t, map[int]int{0: 0, 1: 0, 2: 1, 3: 1}, nodes)

	n, ok, err := ReadNUMANode(filepath.Join(root, "sys/class/nvme/nvme0/device/numa_node"))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 1, n)
	_, ok, err = ReadNUMANode(filepath.Join(root, "sys/class/nvme/nvme7/device/numa_node"))
	require.NoError(t, err)
	require.False(t, ok)
	_, _, err = ReadNUMANode(filepath.Join(root, "sys/class/nvme/nvme1/device/numa_node"))
	require.ErrorContains(t, err, "numa_node")

	irqs, err := MSIIRQs(filepath.Join(root, "sys"), "eth0")
	require.NoError(t, err)
	require.Equal(t, []int{70, 71}, irqs)
	irqs, err = MSIIRQs(filepath.Join(root, "sys"), "eth9")
	require.NoError(t, err)
	require.Nil(t, irqs)

	proc := filepath.Join(root, "proc")
	a, ok, err := ReadAffinity(proc, 60)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, Affinity{Configured: []int{0, 1, 2, 3}, Effective: []int{2}, HasEffective: true}, a)
	a, ok, err = ReadAffinity(proc, 61)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, Affinity{Configured: []int{1}}, a)
	_, ok, err = ReadAffinity(proc, 99)
	require.NoError(t, err)
	require.False(t, ok)
	_, _, err = ReadAffinity(proc, 62)
	require.ErrorContains(t, err, "irq 62 smp_affinity_list")
}
