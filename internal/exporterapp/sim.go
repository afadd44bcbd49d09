package exporterapp

import (
	"log/slog"
	"net/http"

	"github.com/walab/walab/internal/apiguard"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/sim"
)

// configuredSimulator is the default Options.Simulator: the drive the sim:
// section describes.
func configuredSimulator(f *config.File, logger *slog.Logger) (*sim.Drive, error) {
	sc, err := sim.LoadConfig(f)
	if err != nil {
		return nil, err
	}
	return sim.New(sc, sim.WithLogger(logger.With("component", "sim")))
}

// simFallback is the fleet's Fallback: the simulated drive, always labelled
// simulated="true", remembered in *drives so the app can mount its
// placement switch and reload it. The drive stands in only where it was
// asked for: a configuration with a sim: section (or a program that hands
// its own Options.Simulator). Otherwise a host without a controller serves
// no drive, says why in the log, and walab_nvme_controllers is 0; before,
// the packaged exporter served an invented nvmesim0 on such a host.
func simFallback(o Options, f *config.File, logger *slog.Logger, drives *[]*sim.Drive) func() ([]*fleet.Controller, error) {
	build := o.Simulator
	if build == nil {
		build = configuredSimulator
	}
	if o.Simulator == nil && !f.Has(sim.Section) {
		return func() ([]*fleet.Controller, error) {
			logger.Warn("no NVMe controller found and no sim: section in the configuration: serving no drive " +
				"(walab_nvme_controllers 0); on a host without NVMe, configure the simulated drive with a sim: section (docs/sim.md)")
			return nil, nil
		}
	}
	return func() ([]*fleet.Controller, error) {
		d, err := build(f, logger)
		if err != nil {
			return nil, err
		}
		*drives = append(*drives, d)
		logger.Warn("no NVMe controller found: serving the simulated drive (simulated=\"true\"); configure it in the sim: section",
			"device", d.Name(), "placement_streams", d.Placement())
		return []*fleet.Controller{sim.Controller("", d)}, nil
	}
}

// addDeviceBackendSim adds the simulated drive beside the real controllers
// discovery found when its filesystem has a device backend
// (sim.fs.device): the filesystem and its model need the drive, and the
// namespace it writes is on one of those controllers, so the fallback
// never builds it there.
func addDeviceBackendSim(fl *fleet.Fleet, f *config.File, logger *slog.Logger, drives *[]*sim.Drive) error {
	if len(*drives) > 0 || !f.Has(sim.Section) {
		return nil
	}
	sc, err := sim.LoadConfig(f)
	if err != nil || sc.FS.Device == nil {
		return err
	}
	d, err := configuredSimulator(f, logger)
	if err != nil {
		return err
	}
	*drives = append(*drives, d)
	fl.Controllers = append(fl.Controllers, sim.Controller("", d))
	logger.Info("the filesystem's device backend: serving its model drive beside the real controllers", "device", d.Name(), "namespace", sc.FS.Device.Path)
	return nil
}

// mountSim serves the placement switch (POST ?streams=on|off, GET state)
// and the re-preconditioning (POST) when the fleet runs on the simulator,
// both behind the mutation guard.
func mountSim(mux *http.ServeMux, guard *apiguard.Guard, drives []*sim.Drive) {
	if len(drives) > 0 {
		mux.Handle(sim.PlacementPath, guard.Wrap(drives[0].Handler()))
		mux.Handle(sim.PreconditionPath, guard.Wrap(drives[0].PreconditionHandler()))
	}
}
