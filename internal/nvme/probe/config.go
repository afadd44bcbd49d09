package probe

import (
	"errors"
	"fmt"
	"sort"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/decode"
)

// Source names of the standard NAND sources. A vendor layout's source name
// is its layout name (e.g. "seed000_c0", "intel_ca").
const (
	SourceAuto           = "auto"
	SourceFDP            = "fdp"
	SourceOCP            = "ocp_c0"
	SourceEnduranceGroup = "endurance_group"
	SourceNone           = "none"
)

// Section is the exporter YAML section the NVMe core owns.
const Section = "nvme"

// Config is the `nvme:` section of the exporter YAML:
//
//	nvme:
//	  source: auto          # default for every device (auto = probe)
//	  devices:
//	    nvme1: {source: endurance_group}
//	  layouts:              # vendor layouts, tried before the built-in ones
//	    - name: acme_c2
//	      ...               # decode.Layout fields
type Config struct {
	Source  string                  `yaml:"source"`
	Devices map[string]DeviceConfig `yaml:"devices"`
	Layouts []decode.Layout         `yaml:"layouts"`
}

// DeviceConfig overrides settings for one controller (keyed by its name, e.g. nvme0).
type DeviceConfig struct {
	Source string `yaml:"source"`
}

// LoadConfig decodes and validates the nvme section (absent: defaults).
func LoadConfig(f *config.File) (Config, error) {
	var c Config
	if f != nil {
		if err := f.Decode(Section, &c); err != nil {
			return Config{}, err
		}
	}
	return c, c.Validate()
}

// Validate checks layouts and that every forced source names something walab knows.
func (c Config) Validate() error {
	var errs []error
	names := map[string]bool{SourceAuto: true, SourceFDP: true, SourceOCP: true, SourceEnduranceGroup: true, SourceNone: true}
	for _, l := range decode.BuiltinLayouts() {
		names[l.Name] = true
	}
	for i, l := range c.Layouts {
		if err := l.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("nvme.layouts[%d]: %w", i, err))
			continue
		}
		if names[l.Name] && !isBuiltinLayout(l.Name) {
			errs = append(errs, fmt.Errorf("nvme.layouts[%d]: name %q is a standard source name", i, l.Name))
		}
		names[l.Name] = true
	}
	check := func(where, s string) {
		if s != "" && !names[s] {
			errs = append(errs, fmt.Errorf("%s: unknown source %q (want one of %s)", where, s, sortedKeys(names)))
		}
	}
	check("nvme.source", c.Source)
	for dev, d := range c.Devices {
		check("nvme.devices."+dev+".source", d.Source)
	}
	return errors.Join(errs...)
}

// SourceFor returns the configured source of a device ("auto" when none is forced).
func (c Config) SourceFor(device string) string {
	if d, ok := c.Devices[device]; ok && d.Source != "" {
		return d.Source
	}
	if c.Source != "" {
		return c.Source
	}
	return SourceAuto
}

// AllLayouts is the user layouts followed by the built-in ones; a user
// layout with a built-in's name replaces it.
func (c Config) AllLayouts() []decode.Layout {
	out := append([]decode.Layout(nil), c.Layouts...)
	seen := map[string]bool{}
	for _, l := range c.Layouts {
		seen[l.Name] = true
	}
	for _, l := range decode.BuiltinLayouts() {
		if !seen[l.Name] {
			out = append(out, l)
		}
	}
	return out
}

func isBuiltinLayout(name string) bool {
	for _, l := range decode.BuiltinLayouts() {
		if l.Name == name {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
