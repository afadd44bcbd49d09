package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/walab/walab/internal/apiguard"
	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/sim"
	"github.com/walab/walab/internal/wa"
)

// exporterApp is everything serve runs, built without a network listener so
// tests and benchmarks can drive it directly.
type exporterApp struct {
	registry *prometheus.Registry // walab_* metrics
	handler  http.Handler         // landing page, metrics, run-start API
	sampler  *wa.Sampler
	fleet    *fleet.Fleet
	sims     []*sim.Drive // simulated drives in the fleet (the default without NVMe)
	cfgPath  string
}

func loadConfig(path string) (*config.File, error) {
	if path == "" {
		return config.Empty(), nil
	}
	f, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	// A misspelt section ("filesytem:") would otherwise be ignored in
	// silence, as a misspelt key inside a section is not.
	known := append([]string{"nvme", "wa", sim.Section}, collector.Names()...)
	for _, s := range f.Sections() {
		if !slices.Contains(known, s) {
			slices.Sort(known)
			known = slices.Compact(known) // the nvme collector and the nvme: section share a name
			return nil, fmt.Errorf("config %s: unknown section %q (known: %s)", path, s, strings.Join(known, ", "))
		}
	}
	return f, nil
}

func newExporterApp(o *options, logger *slog.Logger) (*exporterApp, error) {
	cfg, err := loadConfig(o.configFile)
	if err != nil {
		return nil, err
	}
	fl, err := buildFleet(o, cfg, logger)
	if err != nil {
		return nil, err
	}
	placed := map[string]collector.PlacedWriter{}
	for _, c := range fl.Controllers {
		if d := simDriveOf(c); d != nil {
			placed[c.Name] = d
		}
	}
	// The WA sampler, when its collector is on: it reads the same cached
	// device reads as the nvme collector, on its own clock.
	var sampler *wa.Sampler
	if collector.IsEnabled("wa") {
		var waCfg wa.Config
		if err := cfg.Decode("wa", &waCfg); err != nil {
			fl.Close()
			return nil, err
		}
		var pollers []*probe.Poller
		for _, c := range fl.Controllers {
			if c.Poller != nil {
				pollers = append(pollers, c.Poller)
			}
		}
		if sampler, err = wa.New(waCfg.Options(wa.FromPollers(pollers, o.readTimeout), logger.With("component", "wa"))); err != nil {
			fl.Close()
			return nil, err // wa.New names itself
		}
	}
	set, err := collector.New(collector.Env{Logger: logger, Paths: o.paths, Config: cfg, Fleet: fl, PlacedWriters: placed, WA: sampler})
	if err != nil {
		fl.Close()
		if sampler != nil {
			sampler.Close()
		}
		return nil, err
	}
	set.Timeout = o.scrapeTimeout
	logger.Info("collectors enabled", "collectors", set.Enabled())

	reg := prometheus.NewRegistry()
	reg.MustRegister(set)
	gatherers := prometheus.Gatherers{reg}
	if !o.disableExporterMetrics {
		self := prometheus.NewRegistry()
		self.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
			versioncollector.NewCollector("walab_exporter"))
		gatherers = append(gatherers, self)
	}
	metrics := promhttp.HandlerFor(gatherers, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(logger.Handler(), slog.LevelError),
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: o.maxRequests,
	})

	mux := http.NewServeMux()
	mux.Handle(o.telemetryPath, metrics)
	guard := apiguard.New(apiguard.Options{Enabled: o.enableMutations})
	if sampler != nil {
		mux.Handle(wa.RunStartPath, guard.Wrap(sampler.Handler()))
	}
	sims := simDrivesOf(fl)
	mountSim(mux, guard, sims)
	if o.telemetryPath != "/" {
		links := []web.LandingLinks{{Address: o.telemetryPath, Text: "Metrics"}}
		if sampler != nil {
			links = append(links, web.LandingLinks{Address: wa.RunStartPath, Text: "Run marks", Description: "GET lists the marks; with " + apiguard.EnableFlag + ", POST with the header " + apiguard.Header + ": " + apiguard.HeaderValue + " marks the start of a benchmark run (WA window \"run\")"})
		}
		landing, err := web.NewLandingPage(web.LandingConfig{
			Name:        "walab exporter",
			Description: "NVMe write amplification (host vs NAND bytes) for MySQL on NVMe, with placement, IRQ and InnoDB context.",
			Version:     version.Info(),
			Links:       links,
		})
		if err != nil {
			fl.Close()
			return nil, err
		}
		mux.Handle("/", landing)
	}
	return &exporterApp{registry: reg, handler: mux, sampler: sampler, fleet: fl, sims: sims, cfgPath: o.configFile}, nil
}

func (a *exporterApp) Close() error {
	forgetSimDrives(a.fleet)
	return a.fleet.Close()
}

// reloadOnHUP re-reads the configuration on SIGHUP; today that switches the
// simulated drive's placement, so a baseline and a streams phase can run
// back to back without a restart.
func (a *exporterApp) reloadOnHUP(ctx context.Context, hup <-chan os.Signal, logger *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if err := reloadSim(a.cfgPath, a.sims, logger); err != nil {
				logger.Error("reload on SIGHUP failed; keeping the running configuration", "err", err)
			}
			// A deliberate re-probe: a device whose NAND source changed
			// (firmware update, FDP switched) takes its new source now;
			// its WA windows restart.
			for _, c := range a.fleet.Controllers {
				if c.Poller != nil {
					c.Poller.Reprobe()
				}
			}
			logger.Info("SIGHUP: NVMe controllers will be probed again on their next read")
		}
	}
}

// serve runs the exporter until ctx ends.
func serve(ctx context.Context, o *options, logger *slog.Logger) error {
	logger.Info("starting walab exporter", "version", version.Info())
	a, err := newExporterApp(o, logger)
	if err != nil {
		return err
	}
	defer a.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Registered before anything can answer, so an early SIGHUP never kills the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go a.reloadOnHUP(ctx, hup, logger)
	samplerDone := make(chan struct{})
	go func() {
		defer close(samplerDone)
		if a.sampler != nil {
			_ = a.sampler.Run(ctx) // logs its own errors; saves its state when ctx ends
		}
	}()

	srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = srv.Shutdown(shutCtx)
	}()
	err = web.ListenAndServe(srv, o.web, logger)
	cancel()
	<-samplerDone
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
