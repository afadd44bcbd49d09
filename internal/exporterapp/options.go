// Package exporterapp is the exporter's composition root: from Options (the
// parsed command line) it builds the fleet, the collectors, the WA sampler
// and the HTTP handler, runs them until the context ends, reloads on SIGHUP,
// and captures devices in the replay format. The exporter binary is its
// flags and a call to Serve or Capture, as Alertmanager's cmd is over its
// packages.
package exporterapp

import (
	"log/slog"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/sim"
)

// Options are everything the exporter is told on its command line.
type Options struct {
	Web                    *web.FlagConfig // listen addresses and TLS/auth file; Serve only
	TelemetryPath          string          // "/metrics"
	MaxRequests            int             // parallel scrapes (0 = no limit)
	DisableExporterMetrics bool            // leave out go_*, process_*, promhttp_*
	ConfigFile             string          // exporter YAML ("" = defaults)
	Paths                  collector.Paths
	Devices                []string // controllers to watch instead of sysfs discovery
	ReplayDir              string   // run on a replay directory instead of devices
	CacheMaxAge            time.Duration
	ScrapeTimeout          time.Duration
	ReadTimeout            time.Duration
	EnableMutations        bool // the state-changing endpoints

	// Simulator builds the simulated drive served when no controller is
	// found (neither ReplayDir nor Devices given and sysfs has none). Nil:
	// the drive the configuration's sim: section describes.
	Simulator func(cfg *config.File, logger *slog.Logger) (*sim.Drive, error)
}
