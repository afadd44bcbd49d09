package exporterapp

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/replay"
)

// Capture writes, for each controller, what the exporter reads from it (the
// probe, one poll and the placement pages, through the same reader as
// Serve) into out/<name>/ in the replay format. Pages the controller does
// not support produce no file. With device empty, every controller of o's
// fleet (replay directory, device list, sysfs or the simulated drive) is
// captured; otherwise only that device.
func Capture(ctx context.Context, o Options, logger *slog.Logger, device, out string) error {
	if device != "" {
		o.Devices, o.ReplayDir = []string{device}, ""
	}
	cfgFile, err := LoadConfig(o.ConfigFile)
	if err != nil {
		return err
	}
	cfg, err := probe.LoadConfig(cfgFile)
	if err != nil {
		return err
	}
	fl, _, err := openFleet(o, cfgFile, cfg, logger)
	if err != nil {
		return err
	}
	defer fl.Close()
	if len(fl.Controllers) == 0 {
		return fmt.Errorf("capture: no NVMe controller found")
	}
	for _, c := range fl.Controllers {
		if c.Device == nil {
			return fmt.Errorf("capture %s: %w", c.Name, c.OpenErr)
		}
		files, err := captureOne(ctx, c, cfg, filepath.Join(out, c.Name))
		if err != nil {
			return fmt.Errorf("capture %s: %w", c.Name, err)
		}
		logger.Info("captured", "device", c.Name, "dir", filepath.Join(out, c.Name), "files", files)
	}
	return nil
}

func captureOne(ctx context.Context, c *fleet.Controller, cfg probe.Config, dir string) ([]string, error) {
	rec := replay.NewRecorder()
	r := &probe.Reader{Dev: c.Device, Record: rec.Record}
	plan, err := probe.Probe(ctx, r, c.NSIDs(), cfg)
	if err != nil {
		return nil, err
	}
	if _, err := probe.Poll(ctx, r, plan, time.Now()); err != nil {
		return nil, err
	}
	// The streams collector's pages, through the same reader it uses: a
	// capture is a complete fixture for it too. Its errors are the
	// collector's to report; a page that failed simply has no file.
	var nsid uint32
	if len(c.Namespaces) > 0 {
		nsid = c.Namespaces[0].NSID
	}
	_, _ = probe.NewPlacementReader(r, nsid).Read(ctx)
	rec.SetText(replay.FileModel, c.Model)
	rec.SetText(replay.FileSerial, c.Serial)
	rec.SetText(replay.FileFirmware, c.Firmware)
	if err := rec.WriteDir(dir); err != nil {
		return nil, err
	}
	return rec.Files(), nil
}
