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
// and refuses a top-level section no part of the exporter reads. The file
// must be a regular file (readConfigFile): a FIFO never blocks the start.
func LoadConfig(path string) (*config.File, error) {
	if path == "" {
		return config.Empty(), nil
	}
	b, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	return parseConfig(path, b)
}

// parseConfig parses the file read from path and checks its sections.
func parseConfig(path string, b []byte) (*config.File, error) {
	f, err := config.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
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
