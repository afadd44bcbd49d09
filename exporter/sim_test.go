package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/sim"
	"github.com/walab/walab/internal/simload"
)

// TestCaptureFromSimulator wires the simulator through the simControllers
// hook the way the integrator will, captures it, and serves the capture:
// the replayed drive probes to the same source as the simulated one.
func TestCaptureFromSimulator(t *testing.T) {
	prevSim := simControllers // the package's default wiring (exporter/sim.go)
	simControllers = func(*config.File, *slog.Logger) ([]*fleet.Controller, error) {
		d, err := sim.New(sim.Config{
			Capacity: 256 << 20, Scale: 1, SpareFactor: 0.1, BlockPages: 64, Rate: 64 << 20, Seed: 3,
			Workload: simload.Spec{Mix: simload.MySQLMix{BinlogRetainSpace: 0.05}},
		})
		if err != nil {
			return nil, err
		}
		return []*fleet.Controller{sim.Controller("nvme0", d)}, nil
	}
	defer func() { simControllers = prevSim }()

	out := t.TempDir()
	logs := &syncBuffer{}
	code := run(context.Background(), []string{"capture", "--path.sysfs=" + t.TempDir(), "--path.devfs=" + t.TempDir(), "--out=" + out}, logs)
	require.Equal(t, 0, code, logs.String())
	for _, f := range []string{"id-ctrl.bin", "id-ns-1.bin", "log-02.bin", "log-c0.bin"} {
		_, err := os.Stat(filepath.Join(out, "nvme0", f))
		require.NoError(t, err, f)
	}

	fl, err := buildFleet(&options{replayDir: out}, config.Empty(), quiet())
	require.NoError(t, err)
	defer fl.Close()
	s, err := fl.Controllers[0].Poller.Sample(context.Background())
	require.NoError(t, err)
	require.Equal(t, probe.SourceOCP, s.Source)
	require.NotNil(t, s.MediaBytes)
}
