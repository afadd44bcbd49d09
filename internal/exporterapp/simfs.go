package exporterapp

import (
	"errors"
	"log/slog"

	"github.com/walab/walab/internal/simfs"
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
		fs, err := simfs.Mount(simfs.Options{
			Backing: fc.Backing, Mountpoint: fc.Mountpoint, Drive: d,
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

// unmountSimFS unmounts what mountSimFS mounted.
func (a *App) unmountSimFS() error {
	var errs []error
	for _, fs := range a.mounts {
		errs = append(errs, fs.Unmount())
	}
	a.mounts = nil
	return errors.Join(errs...)
}
