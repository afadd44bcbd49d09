// Package hostrate turns a real block device's write counter
// (/proc/diskstats) into host bytes for the simulated drive, so that it
// writes as much as the database on the real host does.
package hostrate

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ParseDiskstats returns the sectors written (512-byte units, the 10th
// field, whatever the device's logical block size) of one device in the text
// of /proc/diskstats.
func ParseDiskstats(data []byte, device string) (uint64, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[2] != device {
			continue
		}
		if len(f) < 10 {
			return 0, fmt.Errorf("diskstats line %d (%s): %d fields, want at least 10", n, device, len(f))
		}
		v, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("diskstats line %d (%s): sectors written: %w", n, device, err)
		}
		return v, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("diskstats: %w", err)
	}
	return 0, fmt.Errorf("diskstats: no device %q", device)
}

// Diskstats turns a real block device's write counter into host bytes
// for the simulated drive: each Delta is the bytes written since the last.
type Diskstats struct {
	path   string
	device string
	last   uint64
	primed bool
}

// NewDiskstats reads <procfs>/diskstats for device (e.g. "nvme0n1").
func NewDiskstats(procfs, device string) (*Diskstats, error) {
	if device == "" || strings.ContainsAny(device, "/ \t\n") {
		return nil, fmt.Errorf("diskstats: invalid device name %q", device)
	}
	if procfs == "" {
		procfs = "/proc"
	}
	return &Diskstats{path: filepath.Join(procfs, "diskstats"), device: device}, nil
}

// Delta returns the bytes the device wrote since the previous call (0 on the
// first call, which only takes the baseline). A counter that went backwards
// (device re-created, counter wrapped) restarts the baseline.
func (d *Diskstats) Delta() (uint64, error) {
	b, err := os.ReadFile(d.path)
	if err != nil {
		return 0, err
	}
	sectors, err := ParseDiskstats(b, d.device)
	if err != nil {
		return 0, err
	}
	defer func() { d.last, d.primed = sectors, true }()
	if !d.primed || sectors < d.last {
		return 0, nil
	}
	return (sectors - d.last) * 512, nil
}
