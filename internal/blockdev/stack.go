package blockdev

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Kinds of block device.
const (
	KindNVMe      = "nvme"      // an NVMe namespace (nvme0n1)
	KindPartition = "partition" // a partition of a disk (nvme0n1p1)
	KindMD        = "md"        // a Linux software RAID array (md0)
	KindDM        = "dm"        // a device-mapper device (dm-0: LVM, dm-linear, dm-crypt)
	KindOther     = "other"     // any other disk (vda, sda, loop0)
)

// Device is one block device of the stack and its place in it.
type Device struct {
	Name       string   // kernel name, the `device` label: nvme0n1, nvme0n1p2, md0, dm-1, vda
	Kind       string   // one of the Kind constants
	Controller string   // NVMe controller (nvme0) of a namespace or of a partition of one; "" otherwise
	Parent     string   // the whole disk of a partition; "" otherwise
	Slaves     []string // devices this one is built on (md members, dm targets), sorted
	DMName     string   // dm/name of a device-mapper device (vg0-data)
}

// Root is a device discovery starts from.
type Root struct {
	Name       string // block device name
	Controller string // its NVMe controller, when the caller knows it ("" to read it from sysfs)
	// Down also walks down to the devices Name is built on (slaves/, then
	// a partition's disk): the disks under a filesystem's dm or md device.
	Down bool
}

// MissingRootError is a root that sysfs does not have.
type MissingRootError struct {
	Name string
	Err  error
}

func (e *MissingRootError) Error() string { return fmt.Sprintf("block device %s: %v", e.Name, e.Err) }

func (e *MissingRootError) Unwrap() error { return e.Err }

// maxDepth bounds the walk up the holders (NVMe → partition → md → dm →
// dm is four); a deeper or cyclic sysfs tree stops here, with an error.
const maxDepth = 8

var (
	nsName   = regexp.MustCompile(`^(nvme\d+)n\d+$`)
	ctrlName = regexp.MustCompile(`^nvme\d+$`)
)

// Discover walks sysfs (rooted at sysRoot, normally /sys) from roots up
// through every device built on them: the partitions that something holds,
// md arrays and dm devices, recursively. It returns at most max devices
// (roots first, then by depth and name) and how many it left out. A root
// that does not exist is an error naming it; the other devices are still
// returned.
func Discover(sysRoot string, roots []Root, max int) (devs []Device, omitted int, err error) {
	classBlock := filepath.Join(sysRoot, "class", "block")
	seen := map[string]bool{}
	var errs []error
	type item struct {
		name, ctrl string
		depth      int
		down       bool
	}
	var queue []item
	sorted := append([]Root(nil), roots...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, r := range sorted {
		if !validName(r.Name) {
			errs = append(errs, fmt.Errorf("block device name %q", r.Name))
			continue
		}
		queue = append(queue, item{r.Name, r.Controller, 0, r.Down})
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if seen[it.name] {
			continue
		}
		seen[it.name] = true
		dir := filepath.Join(classBlock, it.name)
		if _, err := os.Stat(dir); err != nil {
			if it.depth == 0 {
				errs = append(errs, &MissingRootError{Name: it.name, Err: err})
			}
			continue
		}
		if it.depth > maxDepth {
			errs = append(errs, fmt.Errorf("block device %s: more than %d levels of holders", it.name, maxDepth))
			continue
		}
		d, err := readDevice(classBlock, it.name, it.ctrl)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(devs) < max {
			devs = append(devs, d)
		} else {
			omitted++
		}
		// Up the stack: what holds this device, and what holds its partitions.
		var next []string
		next = append(next, listDir(filepath.Join(dir, "holders"))...)
		for _, p := range partitions(dir) {
			if len(listDir(filepath.Join(dir, p, "holders"))) > 0 {
				next = append(next, p)
			}
		}
		sort.Strings(next)
		for _, n := range next {
			ctrl := ""
			if d.Kind == KindNVMe || d.Kind == KindPartition {
				ctrl = d.Controller
			}
			queue = append(queue, item{n, ctrl, it.depth + 1, false})
		}
		// Down the stack: everything an array is built on, so that the sum
		// over its members is complete even where a member is no root.
		if it.down || d.Kind == KindMD || d.Kind == KindDM {
			below := append([]string(nil), d.Slaves...)
			if d.Parent != "" {
				below = append(below, d.Parent)
			}
			for _, n := range below {
				queue = append(queue, item{n, "", it.depth + 1, true})
			}
		}
	}
	return devs, omitted, errors.Join(errs...)
}

func readDevice(classBlock, name, ctrl string) (Device, error) {
	dir := filepath.Join(classBlock, name)
	d := Device{Name: name, Kind: KindOther, Slaves: listDir(filepath.Join(dir, "slaves"))}
	sort.Strings(d.Slaves)
	switch {
	case exists(filepath.Join(dir, "partition")):
		d.Kind = KindPartition
		// The partition's directory sits inside its disk's.
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			d.Parent = filepath.Base(filepath.Dir(real))
		}
		if m := nsName.FindStringSubmatch(d.Parent); m != nil {
			d.Controller = ctrl
			if d.Controller == "" {
				d.Controller = controllerOf(classBlock, d.Parent, m[1])
			}
		}
	case nsName.MatchString(name):
		d.Kind = KindNVMe
		d.Controller = ctrl
		if d.Controller == "" {
			d.Controller = controllerOf(classBlock, name, nsName.FindStringSubmatch(name)[1])
		}
	case exists(filepath.Join(dir, "md")):
		d.Kind = KindMD
	case exists(filepath.Join(dir, "dm")):
		d.Kind = KindDM
		if b, err := os.ReadFile(filepath.Join(dir, "dm", "name")); err == nil {
			d.DMName = strings.TrimSpace(string(b))
		}
	}
	return d, nil
}

// controllerOf names a namespace's controller: the target of its `device`
// link (nvme0), or else the name's own prefix (with native multipath the
// link is the subsystem, and nvme0n1's prefix is the subsystem's number).
func controllerOf(classBlock, name, prefix string) string {
	if real, err := filepath.EvalSymlinks(filepath.Join(classBlock, name, "device")); err == nil {
		if b := filepath.Base(real); ctrlName.MatchString(b) {
			return b
		}
	}
	return prefix
}

func partitions(dir string) []string {
	var out []string
	for _, e := range listDir(dir) {
		if exists(filepath.Join(dir, e, "partition")) {
			out = append(out, e)
		}
	}
	return out
}

// listDir lists a directory's entry names, sorted; nothing when it is absent.
func listDir(dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if validName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// DeviceOf names the block device with number major:minor, through
// <sysRoot>/dev/block/<major>:<minor>: the device that holds a filesystem.
func DeviceOf(sysRoot string, major, minor uint32) (string, error) {
	link := filepath.Join(sysRoot, "dev", "block", fmt.Sprintf("%d:%d", major, minor))
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", fmt.Errorf("device %d:%d is not a block device: %w", major, minor, err)
	}
	name := filepath.Base(real)
	if !validName(name) {
		return "", fmt.Errorf("device %d:%d: name %q", major, minor, name)
	}
	return name, nil
}

// Leaves returns the devices at the bottom of name's stack (those built on
// nothing), in devs; a partition is a leaf, its disk is not walked.
func Leaves(devs []Device, name string) []Device {
	by := make(map[string]*Device, len(devs))
	for i := range devs {
		by[devs[i].Name] = &devs[i]
	}
	var out []Device
	seen := map[string]bool{}
	var walk func(string, int)
	walk = func(n string, depth int) {
		d, ok := by[n]
		if !ok || seen[n] || depth > maxDepth {
			return
		}
		seen[n] = true
		if len(d.Slaves) == 0 {
			out = append(out, *d)
			return
		}
		for _, s := range d.Slaves {
			walk(s, depth+1)
		}
	}
	walk(name, 0)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
