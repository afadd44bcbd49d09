package exporterapp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"syscall"

	"go.yaml.in/yaml/v3"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/sim"
	"github.com/walab/walab/internal/wa"
)

// maxConfigBytes caps the configuration file a reload reads: a config is a
// few kilobytes; a path pointing at a huge file must not be read whole.
const maxConfigBytes = 1 << 20

// Reload re-reads the configuration file, validates it whole and applies
// it whole, or refuses it and keeps the running configuration (an error,
// logged). Refused: a file that is not a regular file (a FIFO never blocks
// the reload), an empty one (truncated mid-write, a process substitution
// read once), one that lost a section the running file has, one that does
// not parse or whose sim:, nvme: or wa: section is invalid. "Running" is
// the file the exporter started with, not the last reloaded one: a section
// a reload added does not run, so a later file without it is accepted and
// the warning below compares with what runs. Applied: the
// simulated drives' placement.streams, and every controller probes again
// on its next read (a device whose NAND source changed takes it now and
// its WA windows restart). A changed section that only a restart applies
// is named in a log line.
func (a *App) Reload(logger *slog.Logger) error {
	next, err := a.validateReload()
	if err != nil {
		logger.Error("reload refused; keeping the running configuration", "path", a.cfgPath, "err", err)
		return err
	}
	for _, s := range a.restartOnly(next) {
		logger.Warn("reload: section changed; it applies on restart, the running one is kept", "section", s)
	}
	for _, d := range a.sims {
		sc, _ := sim.LoadConfig(next) // validated above
		if err := d.Reload(sc); err != nil {
			if !errors.Is(err, sim.ErrRebuild) {
				logger.Error("sim: reload failed", "device", d.Name(), "err", err) // Validate passed: not expected
				continue
			}
			logger.Warn("sim: placement reloaded; other changed sim: keys apply on restart", "placement_streams", d.Placement())
			continue
		}
		logger.Info("sim: configuration reloaded", "placement_streams", d.Placement())
	}
	for _, c := range a.fleet.Controllers {
		if c.Poller != nil {
			c.Poller.Reprobe()
		}
	}
	logger.Info("reload: NVMe controllers will be probed again on their next read")
	return nil
}

// validateReload reads the configuration file and checks everything a
// reload would apply before anything is.
func (a *App) validateReload() (*config.File, error) {
	if a.cfgPath == "" {
		return config.Empty(), nil
	}
	b, err := readConfigFile(a.cfgPath)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("config %s is empty (truncated mid-write?)", a.cfgPath)
	}
	next, err := parseConfig(a.cfgPath, b)
	if err != nil {
		return nil, err
	}
	if len(next.Sections()) == 0 {
		return nil, fmt.Errorf("config %s is empty: no section, only comments (truncated mid-write?)", a.cfgPath)
	}
	for _, s := range a.cfg.Sections() {
		if !next.Has(s) {
			return nil, fmt.Errorf("config %s: section %q is missing (truncated mid-write?); to drop a section, restart the exporter", a.cfgPath, s)
		}
	}
	if len(a.sims) > 0 {
		if _, err := sim.LoadConfig(next); err != nil {
			return nil, err
		}
	}
	if _, err := probe.LoadConfig(next); err != nil {
		return nil, err
	}
	var wc wa.Config
	if err := next.Decode("wa", &wc); err != nil {
		return nil, err
	}
	return next, nil
}

// restartOnly lists the sections that differ between the running and the
// next configuration and that a reload does not apply: everything but sim:
// (its placement reloads; the sim reports its other keys itself).
func (a *App) restartOnly(next *config.File) []string {
	var out []string
	for _, s := range next.Sections() {
		if s == sim.Section {
			continue
		}
		if !bytes.Equal(sectionYAML(a.cfg, s), sectionYAML(next, s)) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// sectionYAML is a section re-encoded, for comparison; nil when absent.
func sectionYAML(f *config.File, s string) []byte {
	if !f.Has(s) {
		return nil
	}
	var n yaml.Node
	if err := f.Decode(s, &n); err != nil {
		return []byte(err.Error())
	}
	b, err := yaml.Marshal(&n)
	if err != nil {
		return []byte(err.Error())
	}
	return b
}

// readConfigFile reads path without ever blocking: a FIFO, a device node
// or a directory is refused before it is opened, the open is non-blocking
// in case the path changed in between, and the file read is the one
// checked (fstat). Symlinks are followed (a ConfigMap mounts them).
func readConfigFile(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("config %s is not a regular file (%s): give a file, or no --config.file for the defaults", path, fi.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("config %s is not a regular file (%s)", path, fi.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(b) > maxConfigBytes {
		return nil, fmt.Errorf("config %s is larger than %d bytes", path, maxConfigBytes)
	}
	return b, nil
}
