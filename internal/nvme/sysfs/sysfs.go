// Package sysfs discovers NVMe controllers from /sys/class/nvme the way the
// kernel lays it out, under a configurable root so tests use fixture trees.
package sysfs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/walab/walab/internal/safefile"
)

// Namespace is one namespace below a controller.
type Namespace struct {
	NSID  uint32
	Block string // block device name, e.g. "nvme0n1"
}

// Controller is what sysfs says about one controller. Fields the kernel does
// not provide (non-PCI transports, old kernels) stay empty / -1.
type Controller struct {
	Name       string // nvme0
	Model      string
	Serial     string
	Firmware   string
	NUMANode   int    // -1 when unknown
	PCIAddress string // "0000:01:00.0"; "" when the device is not PCI
	Namespaces []Namespace
}

var (
	ctrlName = regexp.MustCompile(`^nvme[0-9]+$`)
	// nvme0n1 without multipath; nvme0c0n1 is the per-path node of a
	// multipath head (block device nvme0n1).
	nsName  = regexp.MustCompile(`^nvme([0-9]+)(c[0-9]+)?n([0-9]+)$`)
	pciAddr = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)
)

// Discover lists the controllers under sysRoot/class/nvme, sorted by number
// (nvme2 before nvme10). A missing class directory means no NVMe driver or no
// device: an empty list, not an error.
func Discover(sysRoot string) ([]Controller, error) {
	dir := filepath.Join(sysRoot, "class", "nvme")
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sysfs: %w", err)
	}
	var out []Controller
	for _, e := range ents {
		if !ctrlName.MatchString(e.Name()) {
			continue
		}
		c, err := Read(sysRoot, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return ctrlNumber(out[i].Name) < ctrlNumber(out[j].Name) })
	return out, nil
}

// Read reads one controller's sysfs directory.
func Read(sysRoot, name string) (Controller, error) {
	dir := filepath.Join(sysRoot, "class", "nvme", name)
	if _, err := os.Stat(dir); err != nil {
		return Controller{}, fmt.Errorf("sysfs: controller %s: %w", name, err)
	}
	c := Controller{
		Name:     name,
		Model:    readText(dir, "model"),
		Serial:   readText(dir, "serial"),
		Firmware: readText(dir, "firmware_rev"),
		NUMANode: -1,
	}
	if s := readText(dir, "device/numa_node"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			c.NUMANode = n
		}
	}
	// The device symlink points at the PCI function (…/0000:01:00.0); for
	// fabrics controllers it points elsewhere and the address stays empty.
	if target, err := os.Readlink(filepath.Join(dir, "device")); err == nil {
		if base := filepath.Base(target); pciAddr.MatchString(base) {
			c.PCIAddress = base
		}
	}
	ns, err := namespaces(dir)
	if err != nil {
		return Controller{}, fmt.Errorf("sysfs: controller %s: %w", name, err)
	}
	c.Namespaces = ns
	return c, nil
}

func namespaces(dir string) ([]Namespace, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Namespace
	seen := map[uint32]bool{}
	for _, e := range ents {
		m := nsName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		nsid, ok := parseNSID(readText(dir, filepath.Join(e.Name(), "nsid")))
		if !ok {
			// Older kernels have no nsid attribute; the name's last number is the nsid.
			nsid, ok = parseNSID(m[3])
		}
		if !ok || seen[nsid] {
			continue
		}
		seen[nsid] = true
		out = append(out, Namespace{NSID: nsid, Block: "nvme" + m[1] + "n" + m[3]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].NSID < out[j].NSID })
	return out, nil
}

func parseNSID(s string) (uint32, bool) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 0 || n == 0xFFFFFFFF {
		return 0, false
	}
	return uint32(n), true
}

func ctrlNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "nvme"))
	return n
}

// maxAttr is the most a sysfs attribute can hold (one page).
const maxAttr = 4096

// readText reads a sysfs attribute as a label value (safefile.CleanText:
// trimmed, sanitised, length-capped); "" if absent or unreadable. The
// attribute itself must be a regular file of at most one page: a symlink
// (model -> a root-only file would export its contents as a label), a FIFO
// or a device node reads as "".
func readText(dir, name string) string {
	b, err := safefile.ReadFile(filepath.Join(dir, name), maxAttr)
	if err != nil {
		return ""
	}
	return safefile.CleanText(b)
}
