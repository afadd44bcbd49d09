package sim

import (
	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/fleet"
)

// Controller wraps a drive for the exporter's fleet: behind the same guarded
// admin.Device as a real controller, always marked Simulated.
func Controller(name string, d *Drive) *fleet.Controller {
	if name == "" {
		name = d.Name()
	}
	return &fleet.Controller{
		Name:       name,
		Device:     admin.New(name, d),
		Model:      Model,
		Serial:     d.cfg.Serial,
		Firmware:   d.cfg.Firmware,
		NUMANode:   -1,
		Namespaces: []fleet.Namespace{{NSID: nsid}},
		Simulated:  true,
	}
}
