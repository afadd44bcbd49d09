// Package blockdev is walab's model of the host block stack: the kernel's
// per-device I/O counters (/proc/diskstats) and the devices that matter to a
// WA measurement (NVMe namespaces, the partitions, md arrays and
// device-mapper devices built on them), discovered from sysfs.
//
// prometheus/procfs reads diskstats too, but its parser stops at the first
// line it cannot read and drops every device after it; here a bad line costs
// that line only.
package blockdev

import (
	"bytes"
	"fmt"
	"strconv"
)

// SectorSize is the unit of diskstats' sector columns, whatever the
// device's logical block size (include/linux/blk_types.h SECTOR_SHIFT).
const SectorSize = 512

// Stat is one line of /proc/diskstats (Documentation/admin-guide/iostats.rst).
// Times are milliseconds. Kernels before 4.18 print 14 columns, 4.18 adds
// discards, 5.5 flushes; a field a kernel does not print is reported by
// HasDiscard/HasFlush, never as 0.
type Stat struct {
	Major, Minor uint32
	Name         string

	ReadIOs, ReadMerges, ReadSectors, ReadTicks     uint64
	WriteIOs, WriteMerges, WriteSectors, WriteTicks uint64
	InFlight, IOTicks, TimeInQueue                  uint64

	HasDiscard                                              bool
	DiscardIOs, DiscardMerges, DiscardSectors, DiscardTicks uint64

	HasFlush             bool
	FlushIOs, FlushTicks uint64
}

// LineError is a diskstats line that could not be read.
type LineError struct {
	Line int // 1-based
	Text string
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("diskstats line %d %q: %v", e.Line, e.Text, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// maxLineEcho bounds how much of a bad line an error repeats.
const maxLineEcho = 80

// ParseDiskstats reads the whole file. Every line it can read is returned;
// each one it cannot read is a *LineError in errs, and costs only itself.
// A device name that appears twice keeps its first line (the second is an
// error): two lines for one name would make one series jump between them.
func ParseDiskstats(data []byte) (stats []Stat, errs []error) {
	seen := map[string]bool{}
	for n := 1; len(data) > 0; n++ {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, err := parseLine(line)
		if err == nil && seen[s.Name] {
			err = fmt.Errorf("device %s already has a line", s.Name)
		}
		if err != nil {
			text := string(line)
			if len(text) > maxLineEcho {
				text = text[:maxLineEcho] + "..."
			}
			errs = append(errs, &LineError{Line: n, Text: text, Err: err})
			continue
		}
		seen[s.Name] = true
		stats = append(stats, s)
	}
	return stats, errs
}

func parseLine(line []byte) (Stat, error) {
	f := bytes.Fields(line)
	switch len(f) {
	case 14, 18, 20:
	default:
		return Stat{}, fmt.Errorf("%d fields, want 14, 18 or 20", len(f))
	}
	var s Stat
	maj, err := strconv.ParseUint(string(f[0]), 10, 32)
	if err != nil {
		return Stat{}, fmt.Errorf("major: %w", err)
	}
	min, err := strconv.ParseUint(string(f[1]), 10, 32)
	if err != nil {
		return Stat{}, fmt.Errorf("minor: %w", err)
	}
	s.Major, s.Minor, s.Name = uint32(maj), uint32(min), string(f[2])
	if !validName(s.Name) {
		return Stat{}, fmt.Errorf("device name %q", s.Name)
	}
	fields := []*uint64{
		&s.ReadIOs, &s.ReadMerges, &s.ReadSectors, &s.ReadTicks,
		&s.WriteIOs, &s.WriteMerges, &s.WriteSectors, &s.WriteTicks,
		&s.InFlight, &s.IOTicks, &s.TimeInQueue,
		&s.DiscardIOs, &s.DiscardMerges, &s.DiscardSectors, &s.DiscardTicks,
		&s.FlushIOs, &s.FlushTicks,
	}
	for i, raw := range f[3:] {
		v, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return Stat{}, fmt.Errorf("column %d: %w", i+4, err)
		}
		*fields[i] = v
	}
	s.HasDiscard = len(f) >= 18
	s.HasFlush = len(f) == 20
	return s, nil
}

// validName accepts what the kernel prints for a block device: printable
// ASCII without '/' (a partition of cciss!c0d0 keeps its '!').
func validName(s string) bool {
	if s == "" || len(s) > 64 || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '/' {
			return false
		}
	}
	return true
}
