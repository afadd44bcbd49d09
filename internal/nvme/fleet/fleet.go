// Package fleet is the set of NVMe controllers the exporter watches: each a
// guarded admin handle plus what sysfs says about it. It is built once at
// start-up (from sysfs discovery, an explicit list, a replay directory or the
// simulator) and shared read-only by the collectors.
package fleet

import (
	"errors"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/probe"
)

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

	// Poller reads SMART and the NAND source through Device, cached and
	// deduplicated; the nvme collector and the WA sampler share it so a
	// scrape and a WA sample never cost two reads. Nil when Device is nil.
	Poller *probe.Poller
	// OpenErr says why Device is nil (e.g. /dev/nvme0 not openable); the
	// controller is still exported from sysfs, with up=0.
	OpenErr error
}

// NSIDs lists the namespace ids known for the controller.
func (c *Controller) NSIDs() []uint32 {
	out := make([]uint32, 0, len(c.Namespaces))
	for _, ns := range c.Namespaces {
		out = append(out, ns.NSID)
	}
	return out
}

// Fleet is the controllers in a stable order (by name).
type Fleet struct {
	Controllers []*Controller
}

// Close releases every controller's device.
func (f *Fleet) Close() error {
	if f == nil {
		return nil
	}
	var errs []error
	for _, c := range f.Controllers {
		if c.Device != nil {
			errs = append(errs, c.Device.Close())
		}
	}
	return errors.Join(errs...)
}
