package hostfacts

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// maxStackDepth bounds the walk down slaves/ (a loop in a broken sysfs
// must not hang the exporter); real stacks are a few levels deep.
const maxStackDepth = 16

// stack is every block device from block down to its disks, through
// partitions, device-mapper and md at any depth, and the whole disks at
// its bottom.
type stack struct {
	devices []string // block first, in walk order
	disks   []string // sorted
	parts   []string // partitions met on the way, sorted
}

// walkStack follows <sysfs>/class/block/<dev>/slaves/ and partitions'
// parent disks from block down.
func walkStack(sysfs, block string) stack {
	var s stack
	seen := map[string]bool{}
	disks, parts := map[string]bool{}, map[string]bool{}
	var walk func(dev string, depth int)
	walk = func(dev string, depth int) {
		if seen[dev] || depth > maxStackDepth {
			return
		}
		seen[dev] = true
		s.devices = append(s.devices, dev)
		if disk := diskOf(sysfs, dev); disk != dev {
			parts[dev] = true
			walk(disk, depth+1)
			return
		}
		slaves := Slaves(sysfs, dev)
		if len(slaves) == 0 {
			disks[dev] = true
		}
		for _, sl := range slaves {
			walk(sl, depth+1)
		}
	}
	walk(block, 0)
	s.disks, s.parts = sortedSet(disks), sortedSet(parts)
	return s
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// diskOf maps a partition (nvme0n1p2, sda1) to its disk through sysfs; any
// other device is its own disk.
func diskOf(sysfs, block string) string {
	if _, err := os.Stat(filepath.Join(sysfs, "class/block", block, "partition")); err == nil {
		if link, err := filepath.EvalSymlinks(filepath.Join(sysfs, "class/block", block)); err == nil {
			return filepath.Base(filepath.Dir(link))
		}
	}
	return block
}

// Controller is the NVMe controller name of a disk (nvme0n1 → nvme0);
// "" for a device that is not an NVMe namespace.
func Controller(disk string) string {
	rest, ok := strings.CutPrefix(disk, "nvme")
	if !ok {
		return ""
	}
	i := strings.IndexByte(rest, 'n')
	if i <= 0 {
		return ""
	}
	if _, err := strconv.Atoi(rest[:i]); err != nil {
		return ""
	}
	return disk[:4+i]
}

// Slaves lists the devices directly under a device-mapper or md device
// (dm-0 → md0, md0 → nvme0n1p1).
func Slaves(sysfs, block string) []string {
	ents, err := os.ReadDir(filepath.Join(sysfs, "class/block", block, "slaves"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// partitionStart is a partition's first byte (sysfs start is in 512-byte
// sectors whatever the logical block size).
func partitionStart(sysfs, part string) (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(sysfs, "class/block", part, "start"))
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n > 1<<54 {
		return 0, false
	}
	return n * 512, true
}

// activeScheduler picks "mq-deadline" out of "[mq-deadline] kyber none".
func activeScheduler(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}
