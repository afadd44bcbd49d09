package exporterapp

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/walab/walab/internal/apiguard"
	"github.com/walab/walab/internal/buildinfo"
	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/cpuprof"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/hotspots"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/sim"
	"github.com/walab/walab/internal/simfs"
	"github.com/walab/walab/internal/simfs/device"
	"github.com/walab/walab/internal/wa"
)

// App is everything Serve runs, built without a network listener so tests
// and benchmarks drive it directly.
type App struct {
	registry *prometheus.Registry // walab_* metrics
	handler  http.Handler         // landing page, metrics, run-start API
	sampler  *wa.Sampler          // nil when the wa collector is off
	fleet    *fleet.Fleet
	sims     []*sim.Drive         // simulated drives in the fleet (the default without NVMe)
	mounts   []*simfs.FS          // their filesystems (sim.fs), unmounted by Close
	devices  []*device.Device     // their device backends (sim.fs.device), closed after the unmount
	fsReg    *prometheus.Registry // the filesystems' walab_simfs_* metrics
	cfgPath  string
	// cfg is the configuration the exporter started with: the sections
	// that run. A reload applies the sim: placement from the file and
	// leaves cfg alone, so a section a reload added (which only a restart
	// applies) never becomes one a later reload must keep.
	cfg *config.File
	// profiler samples mysqld's CPU when the profile collector is on and
	// could start (profileDown says why not).
	profiler    *cpuprof.Profiler
	profileDown string
}

// Handler serves the landing page, the metrics and the API endpoints.
func (a *App) Handler() http.Handler { return a.handler }

// Registry holds the walab_* collectors (not the exporter's own Go metrics).
func (a *App) Registry() *prometheus.Registry { return a.registry }

// Sampler is the WA sampler, nil when the wa collector is off.
func (a *App) Sampler() *wa.Sampler { return a.sampler }

// Fleet is the controllers the app watches.
func (a *App) Fleet() *fleet.Fleet { return a.fleet }

// OpenFleet builds the controllers from o (replay directory, device list,
// sysfs discovery, or the simulated drive when there is none) with one
// cached poller each, configured by cfg's nvme: section. It returns the
// simulated drives it made, if any.
func OpenFleet(o Options, cfg *config.File, logger *slog.Logger) (*fleet.Fleet, []*sim.Drive, error) {
	pc, err := probe.LoadConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	return openFleet(o, cfg, pc, logger)
}

// openFleet is OpenFleet with the nvme: section already decoded.
func openFleet(o Options, cfg *config.File, pc probe.Config, logger *slog.Logger) (*fleet.Fleet, []*sim.Drive, error) {
	var sims []*sim.Drive
	fl, err := fleet.Open(fleet.Options{
		ReplayDir: o.ReplayDir, Devices: o.Devices, SysFS: o.Paths.SysFS, DevFS: o.Paths.DevFS,
		Fallback: simFallback(o, cfg, logger, &sims),
		Probe:    pc, CacheMaxAge: o.CacheMaxAge, Logger: logger,
	})
	if err != nil {
		return nil, nil, err
	}
	if err := addDeviceBackendSim(fl, cfg, logger, &sims); err != nil {
		return nil, nil, err
	}
	return fl, sims, nil
}

// New builds the app: configuration, fleet, WA sampler, collectors and the
// HTTP handler. Close releases the devices.
func New(o Options, logger *slog.Logger) (*App, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(o.ConfigFile)
	if err != nil {
		return nil, err
	}
	fl, sims, err := OpenFleet(o, cfg, logger)
	if err != nil {
		return nil, err
	}
	a := &App{fleet: fl, sims: sims, cfgPath: o.ConfigFile, cfg: cfg}
	if err := a.build(o, cfg, logger); err != nil {
		a.Close()
		return nil, err
	}
	if err := a.mountSimFS(logger); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// build makes the App's parts: the WA sampler, the collectors and the HTTP
// handler that serves them.
func (a *App) build(o Options, cfg *config.File, logger *slog.Logger) error {
	if err := a.startSampler(o, cfg, logger); err != nil {
		return err
	}
	set, err := a.collectors(o, cfg, logger)
	if err != nil {
		return err
	}
	a.registry = prometheus.NewRegistry()
	a.registry.MustRegister(set)
	a.fsReg = prometheus.NewRegistry()
	metrics := newMetricsHandler(set, prometheus.Gatherers{exporterRegistry(o), a.fsReg}, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(logger.Handler(), slog.LevelError),
		ErrorHandling: promhttp.ContinueOnError,
	}, o.ScrapeTimeout, o.MaxRequests)

	mux := http.NewServeMux()
	mux.Handle(o.TelemetryPath, metrics)
	gopts := apiguard.Options{Enabled: o.EnableMutations, Hosts: o.mutationHosts()}
	if o.MutationsTokenFile != "" {
		if gopts.Token, err = apiguard.WriteTokenFile(o.MutationsTokenFile); err != nil {
			return fmt.Errorf("%s: %w", apiguard.TokenFileFlag, err)
		}
		logger.Info("state-changing requests need the token in the token file", "file", o.MutationsTokenFile, "header", apiguard.TokenHeader)
	}
	guard := apiguard.New(gopts)
	if a.sampler != nil {
		mux.Handle(wa.RunStartPath, guard.Wrap(a.sampler.Handler()))
	}
	mountSim(mux, guard, a.sims)
	mux.Handle(hotspots.Path, &profileEndpoint{p: a.profiler, down: a.profileDown, slots: make(chan struct{}, profileMaxRecordings), logger: logger})
	if err := mountHost(mux, cfg, o.Paths, logger); err != nil {
		return err
	}
	if o.TelemetryPath != "/" {
		landing, err := a.landingPage(o)
		if err != nil {
			return err
		}
		mux.Handle("/", landing)
	}
	a.handler = mux
	if o.loopbackOnly() {
		a.handler = guard.CheckHost(mux)
	}
	return nil
}

// startSampler starts the WA sampler, when its collector is on: it reads
// the same cached device reads as the nvme collector, on its own clock.
func (a *App) startSampler(o Options, cfg *config.File, logger *slog.Logger) error {
	if !collector.IsEnabled("wa") {
		return nil
	}
	var waCfg wa.Config
	if err := cfg.Decode("wa", &waCfg); err != nil {
		return err
	}
	var pollers []*probe.Poller
	for _, c := range a.fleet.Controllers {
		if c.Poller != nil {
			pollers = append(pollers, c.Poller)
		}
	}
	s, err := wa.New(waCfg.Options(wa.FromPollers(pollers, o.ReadTimeout), logger.With("component", "wa")))
	if err != nil {
		return err // wa.New names itself
	}
	a.sampler = s
	return nil
}

// collectors starts the CPU profiler (when configured) and makes the
// enabled collectors over the fleet, the simulated drives' placement and
// the WA sampler.
func (a *App) collectors(o Options, cfg *config.File, logger *slog.Logger) (*collector.Set, error) {
	placed := map[string]collector.PlacedWriter{}
	for _, c := range a.fleet.Controllers {
		for _, d := range a.sims {
			if c.Simulated && c.Name == d.Name() {
				placed[c.Name] = simPlacement{d}
			}
		}
	}
	set, err := collector.New(collector.Env{Logger: logger, Paths: o.Paths, Config: cfg,
		Fleet: a.fleet, PlacedWriters: placed, WA: a.sampler, Profiler: a.startProfile(o, logger)})
	if err != nil {
		return nil, err
	}
	set.Timeout = o.ScrapeTimeout // a scrape's own bound: metricsHandler
	logger.Info("collectors enabled", "collectors", set.Enabled())
	return set, nil
}

// exporterRegistry is the exporter's own metrics: the build info always,
// the Go and process collectors unless --web.disable-exporter-metrics.
func exporterRegistry(o Options) *prometheus.Registry {
	self := prometheus.NewRegistry()
	self.MustRegister(collector.BuildInfo())
	if !o.DisableExporterMetrics {
		self.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return self
}

// landingPage is the page at / linking the metrics and the endpoints this
// exporter serves.
func (a *App) landingPage(o Options) (*web.LandingPageHandler, error) {
	links := []web.LandingLinks{{Address: o.TelemetryPath, Text: "Metrics"}}
	if a.sampler != nil {
		links = append(links, web.LandingLinks{Address: wa.RunStartPath, Text: "Run marks", Description: "GET lists the marks; with " + apiguard.EnableFlag + ", POST with the header " + apiguard.Header + ": " + apiguard.HeaderValue + " marks the start of a benchmark run (WA window \"run\")"})
	}
	if a.profiler != nil {
		links = append(links, web.LandingLinks{Address: hotspots.Path + "?seconds=30", Text: "CPU profile", Description: "GET: a pprof CPU profile of the sampled processes (mysqld, mariadbd) over the next ?seconds=N (go tool pprof reads it)"})
	}
	links = append(links, web.LandingLinks{Address: hostapi.Path, Text: "Host facts", Description: "GET: this host's identity, data directories' filesystems and drives, IRQ and mysqld CPU lists (JSON), as walab experiment's checks read them"})
	return web.NewLandingPage(web.LandingConfig{
		Name:        "walab exporter",
		Description: "NVMe write amplification (host vs NAND bytes) for MySQL on NVMe, with placement, IRQ and InnoDB context.",
		Version:     buildinfo.Get().String("walab exporter"),
		Links:       links,
	})
}

// Close stops the WA sampler's background work and releases the devices.
func (a *App) Close() error {
	if a.sampler != nil {
		a.sampler.Close()
	}
	err := a.unmountSimFS()
	if a.profiler != nil {
		err = errors.Join(err, a.profiler.Close())
		a.profiler = nil
	}
	return errors.Join(err, a.fleet.Close())
}

// simPlacement shows a simulated drive's writes by stream to the
// placement_trace collector, which knows no simulator.
type simPlacement struct{ d *sim.Drive }

func (s simPlacement) PlacedWrites() []collector.PlacedWrite {
	in := s.d.PlacedWrites()
	out := make([]collector.PlacedWrite, len(in))
	for i, p := range in {
		out[i] = collector.PlacedWrite(p)
	}
	return out
}
