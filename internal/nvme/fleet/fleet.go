// Package fleet is the set of NVMe controllers the exporter watches: each a
// guarded admin handle plus what sysfs says about it. It is built once at
// start-up (from sysfs discovery, an explicit list, a replay directory or the
// simulator) and shared read-only by the collectors.
package fleet

import "github.com/walab/walab/internal/nvme/admin"

// Namespace is one namespace of a controller.
type Namespace struct {
	NSID  uint32
	Block string // block device name, e.g. "nvme0n1" ("" if unknown)
}

// Controller is one NVMe controller.
type Controller struct {
	Name       string // "nvme0": the `device` label everywhere
	Device     *admin.Device
	Model      string
	Serial     string
	Firmware   string
	NUMANode   int    // -1 when unknown
	PCIAddress string // "" when not PCI (or unknown)
	Namespaces []Namespace
	Simulated  bool // always true for the simulator; exported as a label
}

// Fleet is the controllers in a stable order (by name).
type Fleet struct {
	Controllers []*Controller
}
