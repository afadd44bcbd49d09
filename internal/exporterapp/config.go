package exporterapp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/sim"
)

// LoadConfig reads the exporter's configuration file ("" = an empty one)
// and refuses a top-level section no part of the exporter reads.
func LoadConfig(path string) (*config.File, error) {
	if path == "" {
		return config.Empty(), nil
	}
	f, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	// A misspelt section ("filesytem:") would otherwise be ignored in
	// silence, as a misspelt key inside a section is not.
	known := append([]string{"nvme", "wa", sim.Section}, collector.Names()...)
	for _, s := range f.Sections() {
		if !slices.Contains(known, s) {
			slices.Sort(known)
			known = slices.Compact(known) // the nvme collector and the nvme: section share a name
			return nil, fmt.Errorf("config %s: unknown section %q (known: %s)", path, s, strings.Join(known, ", "))
		}
	}
	return f, nil
}
