package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/sysfs"
)

// buildFleet builds the controllers the exporter watches, from exactly one
// source, in this order:
//
//  1. --nvme.replay=DIR: one replayed controller per subfolder;
//  2. --nvme.device=/dev/nvmeX (repeatable): those devices, with sysfs identity;
//  3. sysfs discovery under --path.sysfs, devices under --path.devfs;
//  4. when discovery finds no controller: simControllers, if set.
//
// Then every controller with a device and no poller gets a Poller (probe +
// cache) built from the `nvme:` config section and --nvme.cache-max-age, so
// the nvme collector and the WA sampler share one cached read per device.
func buildFleet(o *options, cfgFile *config.File, logger *slog.Logger) (*fleet.Fleet, error) {
	cfg, err := probe.LoadConfig(cfgFile)
	if err != nil {
		return nil, err
	}
	var ctrls []*fleet.Controller
	switch {
	case o.replayDir != "":
		ctrls, err = replayControllers(o.replayDir)
	case len(o.devices) > 0:
		ctrls, err = explicitControllers(o.devices, o.paths.SysFS)
	default:
		ctrls, err = discoveredControllers(o.paths.SysFS, o.paths.DevFS)
		if err == nil && len(ctrls) == 0 && simControllers != nil {
			ctrls, err = simControllers(cfgFile, logger)
		}
	}
	if err != nil {
		return nil, err
	}
	for _, c := range ctrls {
		if c.OpenErr != nil {
			logger.Error("cannot open NVMe controller; exporting its sysfs identity with up=0", "device", c.Name, "err", c.OpenErr)
		}
		if c.Device != nil && c.Poller == nil {
			c.Poller = probe.NewPoller(c.Device, c.NSIDs(), cfg, probe.Options{MaxAge: o.cacheMaxAge})
		}
	}
	logger.Info("NVMe fleet", "controllers", len(ctrls))
	return &fleet.Fleet{Controllers: ctrls}, nil
}

// simControllers is the hook for the simulated drive (internal/nvme/sim):
// the integrator sets it, e.g. in an init function of exporter/sim.go, to
// build sim.Controller(...) from the `sim:` section. It is used when neither
// --nvme.replay nor --nvme.device is given and sysfs has no controller, so a
// machine without NVMe runs on the simulator by default. Everything after
// buildFleet (probe, nvme collector, WA sampler, capture) works on it
// unchanged; the simulator's own HTTP handler is mounted by the integrator.
var simControllers func(cfg *config.File, logger *slog.Logger) ([]*fleet.Controller, error)

var idNSFile = regexp.MustCompile(`^id-ns-([0-9]+)\.bin$`)

// replayControllers builds one controller per subfolder of root. A
// subfolder that cannot be read is that controller down (OpenErr, exported
// with up=0), exactly as when it fails mid-run; only an unreadable root
// stops the start.
func replayControllers(root string) ([]*fleet.Controller, error) {
	names, err := replay.Controllers(root)
	if err != nil {
		return nil, err
	}
	var out []*fleet.Controller
	for _, name := range names {
		c := &fleet.Controller{Name: name, NUMANode: -1}
		if err := replayController(c, filepath.Join(root, name)); err != nil {
			c.Device, c.OpenErr = nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func replayController(c *fleet.Controller, dir string) error {
	dev, err := replay.Open(c.Name, dir)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		to   *string
	}{{replay.FileModel, &c.Model}, {replay.FileSerial, &c.Serial}, {replay.FileFirmware, &c.Firmware}} {
		if *f.to, err = replay.ReadText(dir, f.name); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("replay %s: %w", c.Name, err)
	}
	for _, e := range ents {
		if m := idNSFile.FindStringSubmatch(e.Name()); m != nil {
			if n, err := strconv.ParseUint(m[1], 10, 32); err == nil && n > 0 {
				c.Namespaces = append(c.Namespaces, fleet.Namespace{NSID: uint32(n), Block: fmt.Sprintf("%sn%d", c.Name, n)})
			}
		}
	}
	sort.Slice(c.Namespaces, func(i, j int) bool { return c.Namespaces[i].NSID < c.Namespaces[j].NSID })
	c.Device = dev
	return nil
}

var nsDevice = regexp.MustCompile(`^(nvme[0-9]+)n[0-9]+$`)

func explicitControllers(paths []string, sysRoot string) ([]*fleet.Controller, error) {
	var out []*fleet.Controller
	seen := map[string]string{}
	for _, p := range paths {
		name := filepath.Base(p)
		ctrlName := name
		if m := nsDevice.FindStringSubmatch(name); m != nil {
			ctrlName = m[1] // admin commands through a namespace node reach its controller
		}
		// Two nodes of one controller would export every series twice and
		// mix their WA samples: refuse at start-up rather than drop series.
		if prev, dup := seen[ctrlName]; dup {
			return nil, fmt.Errorf("--nvme.device %s and %s reach the same controller %s: list it once", prev, p, ctrlName)
		}
		seen[ctrlName] = p
		// The device label is the controller's name everywhere (irq, streams
		// key on it too), whichever node reaches it.
		c := &fleet.Controller{Name: ctrlName, NUMANode: -1}
		if s, err := sysfs.Read(sysRoot, ctrlName); err == nil {
			fromSysfs(c, s)
		}
		c.Device, c.OpenErr = admin.OpenIoctl(ctrlName, p)
		out = append(out, c)
	}
	return out, nil
}

func discoveredControllers(sysRoot, devRoot string) ([]*fleet.Controller, error) {
	// A sysfs root that does not exist is a mistake (a typo in
	// --path.sysfs, a container without /sys mounted), not "no NVMe here":
	// serving the simulator instead would pass for a measurement.
	if st, err := os.Stat(sysRoot); err != nil || !st.IsDir() {
		if err == nil {
			err = fmt.Errorf("not a directory")
		}
		return nil, fmt.Errorf("--path.sysfs %s: %w", sysRoot, err)
	}
	found, err := sysfs.Discover(sysRoot)
	if err != nil {
		return nil, err
	}
	var out []*fleet.Controller
	for _, s := range found {
		c := &fleet.Controller{Name: s.Name}
		fromSysfs(c, s)
		c.Device, c.OpenErr = admin.OpenIoctl(s.Name, filepath.Join(devRoot, s.Name))
		out = append(out, c)
	}
	return out, nil
}

func fromSysfs(c *fleet.Controller, s sysfs.Controller) {
	c.Model, c.Serial, c.Firmware = s.Model, s.Serial, s.Firmware
	c.NUMANode, c.PCIAddress = s.NUMANode, s.PCIAddress
	for _, ns := range s.Namespaces {
		c.Namespaces = append(c.Namespaces, fleet.Namespace{NSID: ns.NSID, Block: ns.Block})
	}
}
