// Package rawdev guards the commands that write a raw block device (loadgen
// fileio --device, fio on /dev/...): such a device must not be mounted,
// swap, held by md/dm or open by another process, nor have a partition or
// an alias (the disk of a partition, another loop device over the same
// backing file) in any of these states.
package rawdev

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Guard is where CheckDevice looks: sysfs and procfs roots (tests point
// them at fixture trees).
type Guard struct {
	Sys, Proc string
}

// Default reads the running system.
var Default = Guard{Sys: "/sys", Proc: "/proc"}

// CheckDevice refuses what a raw-device run must never write: a path that
// is no block device, a device that is mounted, used as swap, held by md,
// dm or another holder, open by another process, or that has a partition
// or an alias in any of these states (aliases: the disk a partition is
// on; for a loop device, every other loop device over the same backing
// file, and the backing file itself open by another process). It
// returns the device's size in bytes. The open itself adds O_EXCL, with
// which the kernel refuses a device in use by a filesystem or a holder.
func (g Guard) CheckDevice(path string) (int64, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return 0, fmt.Errorf("device %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		return 0, fmt.Errorf("device %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return 0, fmt.Errorf("device %s is not a block device", path)
	}
	maj, min := unix.Major(st.Rdev), unix.Minor(st.Rdev)
	dir, err := filepath.EvalSymlinks(filepath.Join(g.Sys, "dev", "block", fmt.Sprintf("%d:%d", maj, min)))
	if err != nil {
		return 0, fmt.Errorf("device %s (%d:%d): not in sysfs: %w", path, maj, min, err)
	}
	// The device, its partitions and its aliases (the disk of a partition,
	// other loop devices over the same backing file).
	devs, backing := g.aliases(dir)
	devs[dir] = filepath.Base(dir)
	for _, p := range partitions(dir) {
		devs[p] = filepath.Base(p)
	}
	numbers := map[string]string{} // "maj:min" -> name
	for d, name := range devs {
		if hs, _ := os.ReadDir(filepath.Join(d, "holders")); len(hs) > 0 {
			return 0, fmt.Errorf("device %s: %s is held by %s (md, dm or another holder): refused", path, name, hs[0].Name())
		}
		b, err := os.ReadFile(filepath.Join(d, "dev"))
		if err != nil {
			return 0, fmt.Errorf("device %s: %w", path, err)
		}
		numbers[strings.TrimSpace(string(b))] = name
	}
	if err := g.checkMounts(path, numbers); err != nil {
		return 0, err
	}
	if err := g.checkSwaps(path, numbers); err != nil {
		return 0, err
	}
	if err := g.checkOpeners(path, numbers, backing); err != nil {
		return 0, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "size"))
	if err != nil {
		return 0, fmt.Errorf("device %s: %w", path, err)
	}
	sectors, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("device %s: size: %w", path, err)
	}
	return sectors * 512, nil
}

// checkMounts refuses a device whose number is the source of a mount
// (/proc/self/mountinfo's third field).
func (g Guard) checkMounts(path string, numbers map[string]string) error {
	b, err := os.ReadFile(filepath.Join(g.Proc, "self", "mountinfo"))
	if err != nil {
		return fmt.Errorf("device %s: cannot tell whether it is mounted: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		if name, ok := numbers[f[2]]; ok {
			return fmt.Errorf("device %s: %s is mounted on %s: refused", path, name, f[4])
		}
	}
	return sc.Err()
}

// checkSwaps refuses a device (or partition) in /proc/swaps.
func (g Guard) checkSwaps(path string, numbers map[string]string) error {
	b, err := os.ReadFile(filepath.Join(g.Proc, "swaps"))
	if err != nil {
		return nil // no swap support: nothing to check
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(f[0], &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
			continue
		}
		if name, ok := numbers[fmt.Sprintf("%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev))]; ok {
			return fmt.Errorf("device %s: %s is in use as swap: refused", path, name)
		}
	}
	return nil
}
