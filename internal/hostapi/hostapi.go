// Package hostapi is the exporter's host-facts endpoint as its clients see
// it: the JSON layout of GET /api/v1/host and a client. The facts are read
// on the exporter's machine by internal/hostfacts; `walab experiment`'s
// checks and fingerprints read them only through this package, so they
// describe the database host even when the runner is another machine.
package hostapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/walab/walab/internal/buildinfo"
)

// Path is the endpoint on the exporter.
const Path = "/api/v1/host"

// Facts are what a pre-run check or a fingerprint needs about the host
// the exporter runs on. A fact that could not be read is absent (empty,
// nil) and named in Errors, never filled in.
type Facts struct {
	Hostname    string    `json:"hostname"`
	Kernel      string    `json:"kernel,omitempty"`    // /proc/sys/kernel/osrelease
	OS          string    `json:"os,omitempty"`        // os-release PRETTY_NAME
	CPUModel    string    `json:"cpu_model,omitempty"` // /proc/cpuinfo model name
	CPUs        int       `json:"cpus,omitempty"`      // online logical CPUs
	MemoryBytes uint64    `json:"memory_bytes,omitempty"`
	NUMANodes   int       `json:"numa_nodes,omitempty"` // 0: sysfs shows none
	Governor    string    `json:"cpu_governor,omitempty"`
	Irqbalance  *bool     `json:"irqbalance_running,omitempty"`
	DataDirs    []string  `json:"data_dirs,omitempty"` // the configured directories Mounts cover
	Mounts      []Mount   `json:"mounts,omitempty"`
	IRQs        []IRQ     `json:"irqs,omitempty"`
	Processes   []Process `json:"processes,omitempty"`
	Tuning      Tuning    `json:"tuning"`
	// Truncated names lists cut at their bound (mounts, irqs, processes).
	Truncated []string       `json:"truncated,omitempty"`
	Walab     buildinfo.Info `json:"walab"` // the exporter's build
	Errors    []string       `json:"errors,omitempty"`
}

// Mount is one filesystem at or under a configured data directory.
type Mount struct {
	DataDir    string `json:"data_dir"`    // the configured directory it belongs to
	MountPoint string `json:"mount_point"` // where it is mounted
	Device     string `json:"device"`      // major:minor
	Source     string `json:"source,omitempty"`
	FSType     string `json:"fstype,omitempty"`
	Options    string `json:"options,omitempty"` // per-mount and superblock options, comma-separated
	Block      string `json:"block,omitempty"`   // the block device (dm-0, md0, nvme0n1p1), when there is one
	// Stack is every block device from Block down to the disks, through
	// partitions, device-mapper and md at any depth (dm-0 → md0 → nvme0n1p1 → nvme0n1).
	Stack []string `json:"stack,omitempty"`
	// Disks are the stack's whole disks; Controllers the NVMe controllers
	// among them (nvme0n1 → nvme0).
	Disks       []string          `json:"disks,omitempty"`
	Controllers []string          `json:"controllers,omitempty"`
	Schedulers  map[string]string `json:"io_schedulers,omitempty"` // disk → active I/O scheduler
	// Partitions' first byte (start sector × 512), by partition, and
	// whether every one of them is 4 KiB aligned; nil when the stack has
	// no partition (a whole disk is aligned by definition).
	PartitionStarts map[string]uint64 `json:"partition_start_bytes,omitempty"`
	Aligned4K       *bool             `json:"aligned_4k,omitempty"`
	// statfs, as df counts: used = (blocks − free) × frsize, avail = bavail
	// × frsize, fill = used / (used + avail). Nil when statfs failed.
	SizeBytes  *uint64  `json:"size_bytes,omitempty"`
	UsedBytes  *uint64  `json:"used_bytes,omitempty"`
	AvailBytes *uint64  `json:"avail_bytes,omitempty"`
	Fill       *float64 `json:"fill_ratio,omitempty"`
}

// IRQ is one watched interrupt line (an NVMe queue, a configured NIC's
// queue) and the CPUs it may run on.
type IRQ struct {
	IRQ       int    `json:"irq"`
	Device    string `json:"device"`                   // nvme0, eth0
	Action    string `json:"action,omitempty"`         // nvme0q3, eth0-TxRx-1
	CPUs      string `json:"cpus"`                     // smp_affinity_list
	Effective string `json:"effective_cpus,omitempty"` // effective_affinity_list
}

// Process is one watched process (mysqld, mariadbd) and where it may run.
type Process struct {
	Name string `json:"name"`
	PID  int    `json:"pid"`
	CPUs string `json:"cpus"`           // Cpus_allowed_list
	Mems string `json:"mems,omitempty"` // Mems_allowed_list: NUMA nodes its memory may come from
	// NUMAPolicy is the memory policy most of its mappings carry in
	// numa_maps: default, bind:0, interleave:0-1, prefer:1; "" when
	// numa_maps was not readable.
	NUMAPolicy string `json:"numa_policy,omitempty"`
	// Dir is its working directory (/proc/PID/cwd): mysqld and mariadbd
	// chdir to their datadir, so it tells two instances apart. Reading
	// another user's cwd needs ptrace read access; without it Dir is the
	// last --datadir= of its command line (/proc/PID/cmdline, readable by
	// every user), and DirFrom says which ("cwd", "cmdline"). "" when
	// neither was had.
	Dir     string `json:"dir,omitempty"`
	DirFrom string `json:"dir_from,omitempty"`
	// Unread names each of the facts above left empty ("dir",
	// "numa_policy") with the reason, the privilege it needs when that was
	// the reason.
	Unread map[string]string `json:"unread,omitempty"`
}

// Sysctls are the kernel settings of dirty page writeback and swapping a
// host's tuning changes (no seed sets them), the keys of Tuning.Sysctls.
var Sysctls = []string{
	"vm.dirty_ratio", "vm.dirty_background_ratio", "vm.dirty_bytes", "vm.dirty_background_bytes",
	"vm.dirty_expire_centisecs", "vm.dirty_writeback_centisecs", "vm.swappiness",
}

// Tuning is what a database host's tuning sets by hand: seed 000's STEAL
// (§4.1), NIC channels (§4.3) and dropped page cache (§2.4), and the
// sysctls and transparent huge pages no seed sets. Each
// field is absent (nil, empty) when it could not be read or is not set
// there, never a kernel default filled in.
type Tuning struct {
	// SchedSteal is the scheduler's STEAL feature (a vendor patch, e.g.
	// openEuler's) from debugfs sched features: STEAL or NO_STEAL.
	SchedSteal *bool `json:"sched_steal,omitempty"`
	// StealNodeLimit is sched_steal_node_limit= on the kernel command line.
	StealNodeLimit *string `json:"sched_steal_node_limit,omitempty"`
	// Sysctls: vm.dirty_*, vm.swappiness, by their dotted names.
	Sysctls map[string]string `json:"sysctls,omitempty"`
	// Transparent huge pages' active enabled and defrag modes.
	THPEnabled string `json:"thp_enabled,omitempty"`
	THPDefrag  string `json:"thp_defrag,omitempty"`
	// NICChannels are each NIC's queue counts (ethtool -l's channels).
	NICChannels map[string]Channels `json:"nic_channels,omitempty"`
	// PageCacheBytes is meminfo's Cached when the facts were read.
	PageCacheBytes *uint64 `json:"page_cache_bytes,omitempty"`
}

// Channels are a NIC's receive and transmit queues.
type Channels struct {
	RX int `json:"rx"`
	TX int `json:"tx"`
}

const maxBody = 8 << 20

// Get reads the facts of the exporter at base (http://host:10131).
func Get(ctx context.Context, client *http.Client, base string) (*Facts, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+Path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s%s: %s (an exporter older than walab's host facts has no such endpoint)", base, Path, resp.Status)
	}
	var f Facts
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&f); err != nil {
		return nil, fmt.Errorf("GET %s%s: %w", base, Path, err)
	}
	return &f, nil
}

// MountOf is the filesystem holding path on the host: the mount with the
// longest mount point at or above path, among those of the data directory
// that holds path. An error says the exporter does not cover path, so a
// check never judges a directory by the wrong filesystem.
func (f *Facts) MountOf(path string) (*Mount, error) {
	p := filepath.Clean(path)
	dir := ""
	for _, d := range f.DataDirs {
		if within(p, d) && len(d) > len(dir) {
			dir = d
		}
	}
	if dir == "" {
		return nil, fmt.Errorf("the exporter on %s does not watch %s: add it (or a directory above it) to the exporter's host: data_dirs (watched: %s)",
			f.Hostname, p, strings.Join(f.DataDirs, ", "))
	}
	if len(f.Truncated) > 0 && dir != p {
		// A mount below dir may be among those cut off: the longest match
		// left could be the wrong filesystem.
		return nil, fmt.Errorf("the exporter on %s cut its lists (%s): name %s or a narrower directory in its host: data_dirs",
			f.Hostname, strings.Join(f.Truncated, "; "), p)
	}
	var best *Mount
	for i := range f.Mounts {
		m := &f.Mounts[i]
		if m.DataDir == dir && within(p, m.MountPoint) && (best == nil || len(m.MountPoint) > len(best.MountPoint)) {
			best = m
		}
	}
	if best == nil {
		return nil, fmt.Errorf("the exporter on %s could not read the filesystem of %s (see its errors: %s)", f.Hostname, dir, strings.Join(f.Errors, "; "))
	}
	return best, nil
}

// within: path is dir or below it (both clean and absolute).
func within(path, dir string) bool {
	return dir == "/" || path == dir || strings.HasPrefix(path, dir+"/")
}
