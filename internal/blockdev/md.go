package blockdev

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MD is what sysfs says of one md array (Documentation/admin-guide/md.rst).
// prometheus/procfs's Mdraids reads every array at once and stops at the
// first file it cannot read, and has no layout (which RAID 10's copies
// need); this reads one array, so a broken array costs only itself.
type MD struct {
	Device     string
	Level      string // raid0, raid1, raid4, raid5, raid6, raid10, linear
	Disks      int    // raid_disks: members of the complete array
	ChunkBytes uint64 // 0 where the level has no chunks
	Layout     uint64
	ArrayState string // clean, active, readonly, inactive, ...
	Degraded   uint64 // members missing (levels with redundancy)
	SyncAction string // idle, resync, recover, check, repair, reshape, frozen ("" without redundancy)
	// SyncDone and SyncTotal are sync_completed's sectors, while a sync runs.
	SyncDone, SyncTotal uint64
}

// ReadMD reads /sys/block/<name>/md.
func ReadMD(sysRoot, name string) (MD, error) {
	dir := filepath.Join(sysRoot, "class", "block", name, "md")
	m := MD{Device: name}
	read := func(file string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return "", fmt.Errorf("md %s: %w", name, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	num := func(file string) (uint64, error) {
		s, err := read(file)
		if err != nil {
			return 0, err
		}
		// During a reshape raid_disks reads "4 (3)": the first number is the new count.
		if i := strings.IndexByte(s, ' '); i > 0 {
			s = s[:i]
		}
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("md %s: %s: %w", name, file, err)
		}
		return v, nil
	}
	var err error
	if m.Level, err = read("level"); err != nil {
		return m, err
	}
	if m.ArrayState, err = read("array_state"); err != nil {
		return m, err
	}
	if m.Level == "" {
		return m, nil // an array being assembled: no level yet
	}
	disks, err := num("raid_disks")
	if err != nil {
		return m, err
	}
	m.Disks = int(disks)
	switch m.Level {
	case "raid0", "raid4", "raid5", "raid6", "raid10":
		if m.ChunkBytes, err = num("chunk_size"); err != nil {
			return m, err
		}
		if m.Layout, err = num("layout"); err != nil {
			return m, err
		}
	}
	switch m.Level {
	case "raid1", "raid4", "raid5", "raid6", "raid10":
		if m.Degraded, err = num("degraded"); err != nil {
			return m, err
		}
		if m.SyncAction, err = read("sync_action"); err != nil {
			return m, err
		}
		done, err := read("sync_completed")
		if err != nil {
			return m, err
		}
		if a, b, ok := strings.Cut(done, " / "); ok {
			m.SyncDone, err = strconv.ParseUint(a, 10, 64)
			if err == nil {
				m.SyncTotal, err = strconv.ParseUint(b, 10, 64)
			}
			if err != nil {
				return m, fmt.Errorf("md %s: sync_completed %q: %w", name, done, err)
			}
		}
	}
	return m, nil
}

// Syncing is true while a resync, recovery, check, repair or reshape runs:
// it reads or writes the members by itself and would skew a WA window.
func (m MD) Syncing() bool {
	switch m.SyncAction {
	case "", "idle", "frozen":
		return false
	}
	return true
}

// Copies is RAID 10's number of copies of each block: near x far copies
// from the layout (md.rst: the low byte is near copies, the next byte far
// copies).
func (m MD) Copies() (int, bool) {
	near, far := int(m.Layout&0xff), int(m.Layout>>8&0xff)
	if m.Level != "raid10" || near < 1 || far < 1 {
		return 0, false
	}
	return near * far, true
}

// DataDisks is how many members' worth of user data one full stripe holds.
func (m MD) DataDisks() (float64, bool) {
	n := float64(m.Disks)
	switch m.Level {
	case "linear", "raid0":
		return n, m.Disks > 0
	case "raid1":
		return 1, m.Disks > 0
	case "raid4", "raid5":
		return n - 1, m.Disks > 1
	case "raid6":
		return n - 2, m.Disks > 2
	case "raid10":
		c, ok := m.Copies()
		return n / float64(c), ok && m.Disks > 0
	}
	return 0, false
}

// TheoreticalWA is the member bytes written per array byte for full-stripe
// writes: 1 for RAID 0 and linear, n for RAID 1 of n members, the copies
// for RAID 10, (k+1)/k for RAID 4/5 and (k+2)/k for RAID 6 with k data
// members. Smaller writes on a parity level cost more (read-modify-write
// also reads, and writes data and parity for a part of a stripe).
func (m MD) TheoreticalWA() (float64, bool) {
	k, ok := m.DataDisks()
	if !ok || k <= 0 {
		return 0, false
	}
	return float64(m.Disks) / k, true
}
