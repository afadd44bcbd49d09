package main

import (
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/walab/walab/internal/collector"
)

// options are the parsed command-line flags.
type options struct {
	web                    *web.FlagConfig
	telemetryPath          string
	maxRequests            int
	disableExporterMetrics bool
	configFile             string
	paths                  collector.Paths
	devices                []string
	replayDir              string
	cacheMaxAge            time.Duration
	scrapeTimeout          time.Duration
	enableMutations        bool
	readTimeout            time.Duration
}
