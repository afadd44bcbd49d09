package irq

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/walab/walab/internal/sysfile"
)

// CPUNodes maps CPU id to NUMA node from <sysfs>/devices/system/node/node*/cpulist.
// A machine without that directory (NUMA off) yields an empty map, not an error.
func CPUNodes(sysfs string) (map[int]int, error) {
	dirs, err := filepath.Glob(filepath.Join(sysfs, "devices/system/node/node[0-9]*"))
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	for _, d := range dirs {
		node, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "node"))
		if err != nil {
			continue // "node_foo": not a node directory
		}
		s, ok, err := sysfile.ReadOptional(filepath.Join(d, "cpulist"))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // node went away (hot-remove) between glob and read
		}
		cpus, err := ParseCPUList(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(d, "cpulist"), err)
		}
		for _, c := range cpus {
			out[c] = node
		}
	}
	return out, nil
}

// ReadNUMANode reads a device's numa_node file. ok is false when the file is
// missing (device gone, or not a PCI device); the value may be -1 (no node).
func ReadNUMANode(path string) (node int, ok bool, err error) {
	s, ok, err := sysfile.ReadOptional(path)
	if !ok {
		return 0, false, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", path, err)
	}
	return n, true, nil
}

// Affinity is one line's CPU affinity.
type Affinity struct {
	Configured   []int // smp_affinity_list
	Effective    []int // effective_affinity_list
	HasEffective bool  // kernels before 4.15 and some irqchips lack the file
}

// ReadAffinity reads <procfs>/irq/N/{smp,effective}_affinity_list. ok is
// false when the line's directory is gone (freed since /proc/interrupts).
// To read many lines, an AffinityReader does it with less work.
func ReadAffinity(procfs string, irq int) (a Affinity, ok bool, err error) {
	var r AffinityReader
	defer r.Close()
	a, ok, err = r.Read(procfs, irq)
	a.Configured, a.Effective = slices.Clip(slices.Clone(a.Configured)), slices.Clip(slices.Clone(a.Effective))
	return a, ok, err
}

// MSIIRQs lists the interrupt numbers a network interface's PCI function
// owns, from <sysfs>/class/net/<if>/device/msi_irqs/ (one entry per vector).
// A missing directory (virtual NIC, or virtio where the vectors hang off
// the parent) yields nil.
func MSIIRQs(sysfs, iface string) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join(sysfs, "class/net", iface, "device/msi_irqs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n >= 0 {
			out = append(out, n)
		}
	}
	return out, nil
}
