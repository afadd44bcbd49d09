package hostfacts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/hostapi"
)

// readMounts lists, for each data directory, the filesystem holding it and
// every filesystem mounted below it, with the drives under each.
func readMounts(ctx context.Context, o Options, f *hostapi.Facts, errf func(string, ...any)) {
	if len(o.DataDirs) == 0 {
		return
	}
	file, err := os.Open(filepath.Join(o.ProcFS, "self/mountinfo"))
	if err != nil {
		errf("mounts: %v", err)
		return
	}
	entries, bad, err := parseMountinfo(file)
	file.Close()
	if err != nil {
		errf("mounts: %v", err)
	}
	if bad > 0 {
		errf("mounts: %d malformed mountinfo lines skipped", bad)
	}
	for _, dir := range o.DataDirs {
		for _, e := range mountsOf(ctx, o, dir, entries, errf) {
			if len(f.Mounts) == MaxMounts {
				f.Truncated = append(f.Truncated, fmt.Sprintf("mounts (at most %d)", MaxMounts))
				return
			}
			f.Mounts = append(f.Mounts, describe(ctx, o, dir, e, errf))
		}
	}
}

// mountsOf is the entry holding dir (the last mounted over it wins, as the
// kernel resolves it) and the entries whose mount point is below dir.
func mountsOf(ctx context.Context, o Options, dir string, entries []mountEntry, errf func(string, ...any)) []mountEntry {
	real, st, err := o.Prober.Stat(ctx, o.StatfsTimeout, dir)
	if err != nil {
		errf("data directory %s: %v", dir, err)
		return nil
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	var holder *mountEntry
	var below []mountEntry
	for i := range entries {
		e := entries[i]
		switch {
		case e.device == dev && within(real, e.mountPoint) && (holder == nil || len(e.mountPoint) >= len(holder.mountPoint)):
			holder = &entries[i]
		case e.mountPoint != real && within(e.mountPoint, real):
			below = append(below, e)
		}
	}
	if holder == nil {
		errf("data directory %s: device %s not in mountinfo", dir, dev)
		return below
	}
	h := *holder
	if real != dir { // report the directory's own path, not the link target
		h.mountPoint = dir + h.mountPoint[min(len(h.mountPoint), len(real)):]
	}
	return append([]mountEntry{h}, below...)
}

// describe fills one mount's block stack, schedulers, alignment and statfs.
func describe(ctx context.Context, o Options, dir string, e mountEntry, errf func(string, ...any)) hostapi.Mount {
	m := hostapi.Mount{DataDir: dir, MountPoint: e.mountPoint, Device: e.device, Source: e.source, FSType: e.fsType, Options: e.options}
	if e.superOptions != "" {
		m.Options += "," + e.superOptions
	}
	if link, err := os.Readlink(filepath.Join(o.SysFS, "dev/block", e.device)); err == nil {
		m.Block = filepath.Base(link)
	}
	if m.Block != "" {
		s := walkStack(o.SysFS, m.Block)
		m.Stack, m.Disks = s.devices, s.disks
		for _, d := range s.disks {
			if c := Controller(d); c != "" {
				m.Controllers = append(m.Controllers, c)
			}
			if b, err := os.ReadFile(filepath.Join(o.SysFS, "block", d, "queue/scheduler")); err == nil {
				if m.Schedulers == nil {
					m.Schedulers = map[string]string{}
				}
				m.Schedulers[d] = activeScheduler(string(b))
			}
		}
		alignment(o.SysFS, s.parts, &m)
	}
	st, err := o.Prober.Statfs(ctx, o.StatfsTimeout, e.mountPoint)
	if err != nil {
		errf("statfs %s: %v", e.mountPoint, err)
		return m
	}
	dfUsage(st, &m)
	return m
}

// alignment records each partition's start and whether all are 4 KiB aligned.
func alignment(sysfs string, parts []string, m *hostapi.Mount) {
	if len(parts) == 0 {
		return
	}
	ok := true
	m.PartitionStarts = map[string]uint64{}
	for _, p := range parts {
		start, known := partitionStart(sysfs, p)
		if !known {
			m.PartitionStarts, m.Aligned4K = nil, nil
			return
		}
		m.PartitionStarts[p] = start
		ok = ok && start%4096 == 0
	}
	m.Aligned4K = &ok
}

// dfUsage computes size, used, available and fill as df does: used is
// blocks minus free, avail what unprivileged users may still write, and
// fill = used / (used + avail), so root-reserved blocks count as neither.
func dfUsage(st unix.Statfs_t, m *hostapi.Mount) {
	bs := uint64(st.Frsize)
	if bs == 0 {
		bs = uint64(st.Bsize)
	}
	size, used, avail := st.Blocks*bs, (st.Blocks-min(st.Bfree, st.Blocks))*bs, st.Bavail*bs
	m.SizeBytes, m.UsedBytes, m.AvailBytes = &size, &used, &avail
	if used+avail > 0 {
		fill := float64(used) / float64(used+avail)
		m.Fill = &fill
	}
}
