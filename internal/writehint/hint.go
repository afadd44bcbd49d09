// Package writehint reads (and, for tests and tools, sets) Linux per-inode
// write-life hints (fcntl F_GET_RW_HINT / F_SET_RW_HINT), and counts them
// over a data directory with a bounded, cached, symlink-proof walk.
//
// A hint lives in the in-memory inode only: it is not stored on disk, so a
// file whose inode was evicted (memory pressure, drop_caches, reboot) reads
// back as not_set until a tool such as astream tags it again.
//
// The hint is a VFS inode field, so local filesystems generally accept it:
// TestSetGetRoundTrip sets and reads back every value, and on the build box
// (Linux 6.18) ext4 (t.TempDir() under /tmp) and tmpfs (/dev/shm) both did.
// Where a filesystem refuses, the walk tests still check the counts with
// everything not_set.
package writehint

import (
	"errors"
	"strconv"
)

// Hint is an RWH_WRITE_LIFE_* value.
type Hint uint64

// The values of include/uapi/linux/fcntl.h.
const (
	NotSet  Hint = 0
	None    Hint = 1
	Short   Hint = 2
	Medium  Hint = 3
	Long    Hint = 4
	Extreme Hint = 5
)

// Labels lists every label a Hint can produce, for complete (zero-filled) output.
var Labels = []string{"not_set", "none", "short", "medium", "long", "extreme", "unknown"}

// String is the metric label: bounded to Labels.
func (h Hint) String() string {
	if h <= Extreme {
		return Labels[h]
	}
	return "unknown"
}

// ParseHint accepts a label or a number (for configuration and tools).
func ParseHint(s string) (Hint, error) {
	for i, l := range Labels[:Extreme+1] {
		if s == l {
			return Hint(i), nil
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > uint64(Extreme) {
		return 0, errors.New("write hint " + strconv.Quote(s) + " is not one of not_set, none, short, medium, long, extreme or 0-5")
	}
	return Hint(n), nil
}

// ErrUnsupported is returned where the platform has no write-life hints.
var ErrUnsupported = errors.New("write-life hints need Linux >= 4.13")
