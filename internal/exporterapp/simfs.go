package exporterapp

import (
	"errors"
	"log/slog"

	"github.com/walab/walab/internal/nvme/sim"
	"github.com/walab/walab/internal/simfs"
	"github.com/walab/walab/internal/simfs/device"
)

// mountSimFS mounts the filesystem of every simulated drive configured
// with sim.fs (a database's datadir on the mountpoint feeds the drive) and
// registers its counters. Close unmounts them.
func (a *App) mountSimFS(logger *slog.Logger) error {
	for _, d := range a.sims {
		fc := d.Config().FS
		if !fc.Enabled() {
			continue
		}
		var drive simfs.Drive = d
		if fc.Device != nil {
			dev, err := a.openDevice(d, logger)
			if err != nil {
				return err
			}
			drive = device.Tee{Model: d, Device: dev}
		}
		fs, err := simfs.Mount(simfs.Options{
			Backing: fc.Backing, Mountpoint: fc.Mountpoint, Drive: drive,
			LogicalPages: d.LogicalPages(), PageSize: uint32(d.Config().PageSize), NoDiscard: !fc.Discards(),
			AllowOther: fc.AllowOther,
			Logger:     logger.With("component", "simfs"),
		})
		if err != nil {
			return err
		}
		a.mounts = append(a.mounts, fs)
		d.SetLiveMap(fs.WithLive)
		a.registry.MustRegister(fs.Collector(d.Name()))
		a.fsReg.MustRegister(fs.Collector(d.Name()))
		logger.Info("simulated drive under a filesystem: its host writes are the writes to the mountpoint",
			"device", d.Name(), "mountpoint", fc.Mountpoint, "backing", fc.Backing, "capacity_bytes", d.Stats().CapacityBytes)
	}
	return nil
}

// openDevice opens the namespace of d's sim.fs.device section (its
// guard refuses one that is not walab's to write) and registers its
// counters; unmountSimFS closes it.
func (a *App) openDevice(d *sim.Drive, logger *slog.Logger) (*device.Device, error) {
	c := d.Config()
	dev, err := device.Open(*c.FS.Device, uint32(c.PageSize), d.LogicalPages())
	if err != nil {
		return nil, err
	}
	a.devices = append(a.devices, dev)
	a.registry.MustRegister(dev.Collector(d.Name()))
	a.fsReg.MustRegister(dev.Collector(d.Name()))
	logger.Info("filesystem's device backend: every write also goes to the namespace with its placement handle",
		"device", d.Name(), "namespace", dev.Path(), "policy", dev.Policy().String())
	return dev, nil
}

// unmountSimFS unmounts what mountSimFS mounted, then closes the device
// backends' namespaces.
func (a *App) unmountSimFS() error {
	var errs []error
	for _, fs := range a.mounts {
		errs = append(errs, fs.Unmount())
	}
	for _, dev := range a.devices {
		errs = append(errs, dev.Close())
	}
	a.mounts, a.devices = nil, nil
	return errors.Join(errs...)
}
