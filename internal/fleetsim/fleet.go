package fleetsim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/exporterapp"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// Fleet is the simulated hosts, served from one handler.
type Fleet struct {
	cfg    Config
	dir    string
	start  time.Time // simulated time 0
	drives []Drive
	apps   []*exporterapp.App

	mu  sync.Mutex
	now time.Duration // simulated time since start
}

// collectors are the ones a simulated host runs: the drives' (the host
// collectors would read this machine's /proc and /sys, not a simulated host).
var collectors = []string{"nvme", "wa"}

// New writes every host's replay directory under dir at simulated time 0
// (which is start) and builds one exporter app per host. It switches the
// process's collector set to nvme and wa (the switches are global): run it
// in a process or test of its own.
func New(cfg Config, dir string, start time.Time, logger *slog.Logger) (*Fleet, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	for _, name := range collector.Names() {
		on := name == collectors[0] || name == collectors[1]
		if err := collector.SetEnabled(name, on); err != nil {
			return nil, err
		}
	}
	f := &Fleet{cfg: cfg, dir: dir, start: start, drives: drives(cfg)}
	if err := f.write(true); err != nil {
		return nil, err
	}
	for h := range cfg.Hosts {
		a, err := exporterapp.New(exporterapp.Options{
			TelemetryPath: "/metrics", ReplayDir: f.hostDir(h),
			CacheMaxAge: time.Nanosecond, DisableExporterMetrics: true,
		}, logger.With("host", h))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("fleetsim: host %d: %w", h, err)
		}
		f.apps = append(f.apps, a)
	}
	return f, f.sample()
}

func (f *Fleet) hostDir(h int) string { return filepath.Join(f.dir, "hosts", strconv.Itoa(h)) }

// Drives is every drive of the fleet, host by host.
func (f *Fleet) Drives() []Drive { return append([]Drive(nil), f.drives...) }

// Config is the fleet's configuration.
func (f *Fleet) Config() Config { return f.cfg }

// Now is the simulated clock.
func (f *Fleet) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.start.Add(f.now)
}

// Advance moves the simulated clock by d: every drive's log pages are
// rewritten with its counters at the new time, and every host's WA sampler
// takes a sample stamped with it.
func (f *Fleet) Advance(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("fleetsim: Advance needs a positive duration (got %s)", d)
	}
	f.mu.Lock()
	f.now += d
	f.mu.Unlock()
	if err := f.write(false); err != nil {
		return err
	}
	return f.sample()
}

// AdvanceTo moves the simulated clock to t since the start when t is later
// than it, and does nothing otherwise. A driver that keeps simulated time a
// fixed multiple of wall time calls it with that multiple of the wall time
// elapsed, so the clock keeps pace however long each step's writes take
// (the steps then grow instead).
func (f *Fleet) AdvanceTo(t time.Duration) error {
	f.mu.Lock()
	d := t - f.now
	f.mu.Unlock()
	if d <= 0 {
		return nil
	}
	return f.Advance(d)
}

// write lays out every drive's pages at the current simulated time: all of
// them, or only the log pages whose counters advance.
func (f *Fleet) write(all bool) error {
	f.mu.Lock()
	t := f.now
	f.mu.Unlock()
	for _, d := range f.drives {
		fx, dir := d.fixture(f.cfg, t), filepath.Join(f.hostDir(d.Host), d.Name())
		write := fx.WriteLogs
		if all {
			write = fx.Write
		}
		if err := write(dir); err != nil {
			return fmt.Errorf("fleetsim: %w", err)
		}
	}
	return nil
}

func (f *Fleet) sample() error {
	now := f.Now()
	var errs []error
	for h, a := range f.apps {
		if s := a.Sampler(); s != nil {
			if err := s.Sample(context.Background(), now); err != nil {
				errs = append(errs, fmt.Errorf("fleetsim: host %d: %w", h, err))
			}
		}
	}
	return errors.Join(errs...)
}

// fixture is the drive's controller at simulated time t: an OCP drive of
// its model and firmware whose SMART Data Units Written and OCP Physical
// Media Units Written are its host and NAND bytes.
func (d Drive) fixture(c Config, t time.Duration) fixture.Drive {
	host, nand := d.counters(c, t)
	fx := fixture.OCPDrive()
	fx.Model, fx.Firmware, fx.Serial = d.Model, d.Firmware, d.Serial
	fx.SMART.DataUnitsWritten = uint64(host / 512_000)
	fx.SMART.PercentageUsed = d.percentageUsed(nand)
	fx.OCP.PMUW = uint64(nand)
	return fx
}

// Handler serves host N's metrics at /hosts/N/metrics.
func (f *Fleet) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hosts/{n}/metrics", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n < 0 || n >= len(f.apps) {
			http.Error(w, fmt.Sprintf("no host %q: hosts are 0 to %d", r.PathValue("n"), len(f.apps)-1), http.StatusNotFound)
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/metrics"
		f.apps[n].Handler().ServeHTTP(w, r2)
	})
	return mux
}

// Close releases every host's app.
func (f *Fleet) Close() {
	for _, a := range f.apps {
		a.Close()
	}
}
