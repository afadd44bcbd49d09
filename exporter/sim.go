package main

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/walab/walab/internal/apiguard"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/sim"
)

// The simulated drive is the exporter's embedded default: a machine with no
// NVMe controller (a laptop, CI) serves one, always labelled simulated="true".
func init() { simControllers = simulatedControllers }

// simDrives remembers which fleet controller is backed by which simulated
// drive, so the app can mount the placement switch and reload it on SIGHUP.
var simDrives struct {
	mu sync.Mutex
	m  map[*fleet.Controller]*sim.Drive
}

func simulatedControllers(f *config.File, logger *slog.Logger) ([]*fleet.Controller, error) {
	sc, err := sim.LoadConfig(f)
	if err != nil {
		return nil, err
	}
	d, err := sim.New(sc, sim.WithLogger(logger.With("component", "sim")))
	if err != nil {
		return nil, err
	}
	c := sim.Controller(sc.Name, d)
	simDrives.mu.Lock()
	if simDrives.m == nil {
		simDrives.m = map[*fleet.Controller]*sim.Drive{}
	}
	simDrives.m[c] = d
	simDrives.mu.Unlock()
	logger.Warn("no NVMe controller found: serving the simulated drive (simulated=\"true\"); configure it in the sim: section",
		"device", sc.Name, "placement_streams", d.Placement())
	return []*fleet.Controller{c}, nil
}

// simDriveOf is the simulated drive behind a controller, or nil.
func simDriveOf(c *fleet.Controller) *sim.Drive {
	simDrives.mu.Lock()
	defer simDrives.mu.Unlock()
	return simDrives.m[c]
}

// simDrivesOf returns the simulated drives in a fleet.
func simDrivesOf(fl *fleet.Fleet) []*sim.Drive {
	simDrives.mu.Lock()
	defer simDrives.mu.Unlock()
	var out []*sim.Drive
	for _, c := range fl.Controllers {
		if d, ok := simDrives.m[c]; ok {
			out = append(out, d)
		}
	}
	return out
}

// forgetSimDrives drops the fleet's entries when the app closes.
func forgetSimDrives(fl *fleet.Fleet) {
	simDrives.mu.Lock()
	defer simDrives.mu.Unlock()
	for _, c := range fl.Controllers {
		delete(simDrives.m, c)
	}
}

// mountSim serves the placement switch (POST ?streams=on|off, GET state) when
// the fleet runs on the simulator.
func mountSim(mux *http.ServeMux, guard *apiguard.Guard, drives []*sim.Drive) {
	if len(drives) > 0 {
		mux.Handle(sim.PlacementPath, guard.Wrap(drives[0].Handler()))
	}
}

// reloadSim applies a re-read configuration file to the simulated drives:
// placement.streams switches in place; other keys need a restart.
func reloadSim(path string, drives []*sim.Drive, logger *slog.Logger) error {
	if len(drives) == 0 {
		return nil
	}
	f, err := loadConfig(path)
	if err != nil {
		return err
	}
	sc, err := sim.LoadConfig(f)
	if err != nil {
		return err
	}
	for _, d := range drives {
		if err := d.Reload(sc); err != nil {
			if errors.Is(err, sim.ErrRebuild) {
				logger.Warn("sim: placement reloaded; other changed sim: keys apply on restart", "placement_streams", d.Placement(), "err", err)
				continue
			}
			return err
		}
		logger.Info("sim: configuration reloaded", "placement_streams", d.Placement())
	}
	return nil
}
