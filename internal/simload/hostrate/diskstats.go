// Package hostrate turns a real block device's write counter
// (/proc/diskstats) into host bytes for the simulated drive, so that it
// writes as much as the database on the real host does.
package hostrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/walab/walab/internal/blockdev"
)

// ParseDiskstats returns the sectors written (512-byte units, whatever the
// device's logical block size) of one device in the text of
// /proc/diskstats, read by internal/blockdev's parser.
func ParseDiskstats(data []byte, device string) (uint64, error) {
	stats, errs := blockdev.ParseDiskstats(data)
	for _, s := range stats {
		if s.Name == device {
			return s.WriteSectors, nil
		}
	}
	for _, e := range errs {
		var le *blockdev.LineError
		if errors.As(e, &le) {
			if f := strings.Fields(le.Text); len(f) > 2 && f[2] == device {
				return 0, fmt.Errorf("%s: %w", device, e)
			}
		}
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
