// Package collector is the exporter's collector framework, after
// node_exporter: one file per collector, each registered by name with a
// --collector.<name> / --no-collector.<name> flag, and every scrape reports
// each collector's duration and success. A collector's options are its
// file's: its YAML section (a type with complete, read by decodeSection)
// or its own --collector.<name>.* flags (Flags); the app hands the
// services it runs over once, in Env.
package collector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/wa"
)

// Namespace prefixes every metric walab exports.
const Namespace = promql.Prefix

// Collector produces one source's metrics for a scrape.
type Collector interface {
	Update(ctx context.Context, ch chan<- prometheus.Metric) error
}

// ErrNoData means the collector has nothing to report this time (e.g. not
// configured); it counts as success.
var ErrNoData = errors.New("collector returned no data")

// Paths are the roots of the pseudo-filesystems, so tests can point a
// collector at a fixture tree (node_exporter's --path.* flags).
type Paths struct {
	ProcFS string // default /proc
	SysFS  string // default /sys
	DevFS  string // default /dev
}

// withDefaults fills unset roots with the real pseudo-filesystems. New
// does it once for every collector, as node_exporter fills its --path.*
// flags once; a constructor reads env.Paths as it is.
func (p Paths) withDefaults() Paths {
	if p.ProcFS == "" {
		p.ProcFS = "/proc"
	}
	if p.SysFS == "" {
		p.SysFS = "/sys"
	}
	if p.DevFS == "" {
		p.DevFS = "/dev"
	}
	return p
}

// Env is what a collector factory gets: the services the app runs, handed
// over once. A collector's own options are its file's: its YAML section
// (Config) or its flags (Flags).
type Env struct {
	Logger *slog.Logger
	Paths  Paths
	Config *config.File
	Fleet  *fleet.Fleet // NVMe controllers; nil when the exporter has none
	// PlacedWriters are controllers (by name) that count their own write
	// commands by placement: the simulated drives.
	PlacedWriters map[string]PlacedWriter
	// WA is the write-amplification sampler the app runs when the wa
	// collector is enabled (IsEnabled("wa")); its series go through the
	// wa collector.
	WA *wa.Sampler
	// Profiler is the CPU profiler the app runs when the profile collector
	// is on (StartProfiler).
	Profiler Profiler
}

// PlacedWriter is a drive that knows the stream of every write it gets
// (the simulator); the placement_trace collector reports it as the BPF
// tracer reports a real drive.
type PlacedWriter interface {
	PlacedWrites() []PlacedWrite
}

// PlacedWrite is a drive's write commands and bytes that carried one
// stream id (0: none).
type PlacedWrite struct {
	Stream          uint16
	Commands, Bytes uint64
}

// Factory builds a collector. Configuration errors are returned here, at
// start-up, not at scrape time.
type Factory func(Env) (Collector, error)

type entry struct {
	defaultEnabled bool
	factory        Factory
	enabled        *bool
	flags          *ownFlags // nil: the collector has no flags of its own
}

// ownFlags are a collector's flags beside --collector.<name>: declare adds
// them to a command line, check refuses values that mean nothing.
type ownFlags struct {
	declare func(app *kingpin.Application)
	check   func() error
}

var (
	regMu    sync.Mutex
	registry = map[string]*entry{}
)

// Register adds a collector; call it from an init function in the collector's file.
func Register(name string, defaultEnabled bool, f Factory) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("collector registered twice: " + name)
	}
	on := defaultEnabled
	registry[name] = &entry{defaultEnabled: defaultEnabled, factory: f, enabled: &on}
}

// Flags gives a registered collector flags of its own
// (--collector.<name>.*), as node_exporter's collectors declare theirs in
// their file: declare adds them to the command line (RegisterFlags), check
// refuses values that mean nothing, naming the flag (CheckFlags). Call it
// from the collector's init function, after Register.
func Flags(name string, declare func(app *kingpin.Application), check func() error) {
	regMu.Lock()
	defer regMu.Unlock()
	e, ok := registry[name]
	if !ok {
		panic("flags for an unregistered collector: " + name)
	}
	e.flags = &ownFlags{declare: declare, check: check}
}

// Names lists the registered collectors in order.
func Names() []string {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// RegisterFlags adds --collector.<name> (and kingpin's --no-collector.<name>)
// for every collector, and the flags a collector declares of its own.
func RegisterFlags(app *kingpin.Application) {
	for _, name := range Names() {
		e := registry[name]
		state := "disabled"
		if e.defaultEnabled {
			state = "enabled"
		}
		app.Flag("collector."+name, fmt.Sprintf("Enable the %s collector (default: %s).", name, state)).
			Default(strconv.FormatBool(e.defaultEnabled)).BoolVar(e.enabled)
		if e.flags != nil {
			e.flags.declare(app)
		}
	}
}

// CheckFlags refuses collectors' own flag values that mean nothing,
// naming the flag; whether the collector is on or not, as a flag typed
// wrong is refused whatever else the command line says.
func CheckFlags() error {
	for _, name := range Names() {
		if f := registry[name].flags; f != nil {
			if err := f.check(); err != nil {
				return err
			}
		}
	}
	return nil
}

// IsEnabled reports whether a collector's flag is on (false for an
// unknown name): the app builds what a collector needs only when it is.
func IsEnabled(name string) bool {
	regMu.Lock()
	defer regMu.Unlock()
	e, ok := registry[name]
	return ok && *e.enabled
}

// DefaultEnabled reports whether a collector is on when its flag is not
// given (false for an unknown name).
func DefaultEnabled(name string) bool {
	regMu.Lock()
	defer regMu.Unlock()
	e, ok := registry[name]
	return ok && e.defaultEnabled
}

// SetEnabled overrides a collector's flag (tests and programmatic use).
func SetEnabled(name string, on bool) error {
	regMu.Lock()
	defer regMu.Unlock()
	e, ok := registry[name]
	if !ok {
		return fmt.Errorf("unknown collector %q", name)
	}
	*e.enabled = on
	return nil
}

var (
	scrapeDurationDesc = prometheus.NewDesc(Namespace+"_scrape_collector_duration_seconds",
		"How long the collector took during this scrape.", []string{"collector"}, nil)
	scrapeSuccessDesc = prometheus.NewDesc(Namespace+"_scrape_collector_success",
		"1 if the collector succeeded during this scrape, 0 if it failed (see the exporter log).", []string{"collector"}, nil)
)

// Set is the enabled collectors; it implements prometheus.Collector.
type Set struct {
	logger     *slog.Logger
	collectors map[string]Collector
	// Timeout bounds each scrape's collectors (0: none).
	Timeout time.Duration
}

// New builds every enabled collector, or only those named in filter when it is non-empty.
func New(env Env, filter ...string) (*Set, error) {
	env.Logger = env.log()
	if env.Config == nil {
		env.Config = config.Empty()
	}
	env.Paths = env.Paths.withDefaults()
	want := map[string]bool{}
	for _, f := range filter {
		want[f] = true
	}
	s := &Set{logger: env.Logger, collectors: map[string]Collector{}}
	for _, name := range Names() {
		e := registry[name]
		if len(want) > 0 && !want[name] || len(want) == 0 && !*e.enabled {
			continue
		}
		own := env
		own.Logger = env.Logger.With("collector", name)
		c, err := e.factory(own)
		if err != nil {
			return nil, fmt.Errorf("collector %s: %w", name, err)
		}
		s.collectors[name] = c
	}
	for name := range want {
		if _, ok := s.collectors[name]; !ok {
			return nil, fmt.Errorf("unknown collector %q", name)
		}
	}
	return s, nil
}

// Enabled lists the collectors in the set.
func (s *Set) Enabled() []string {
	out := make([]string, 0, len(s.collectors))
	for n := range s.collectors {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Describe sends the framework's own descriptors; collectors' metrics are unchecked.
func (s *Set) Describe(ch chan<- *prometheus.Desc) {
	ch <- scrapeDurationDesc
	ch <- scrapeSuccessDesc
}

// Collect runs every collector concurrently; one failing never fails the scrape.
func (s *Set) Collect(ch chan<- prometheus.Metric) {
	ctx := context.Background()
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	var wg sync.WaitGroup
	for name, c := range s.collectors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run(ctx, name, c, ch)
		}()
	}
	wg.Wait()
}

func (s *Set) run(ctx context.Context, name string, c Collector, ch chan<- prometheus.Metric) {
	start := time.Now()
	err := safeUpdate(ctx, c, ch)
	d := time.Since(start).Seconds()
	ok := 1.0
	switch {
	case err == nil, errors.Is(err, ErrNoData):
		s.logger.Debug("collector succeeded", "collector", name, "duration_seconds", d)
	default:
		ok = 0
		s.logger.Error("collector failed", "collector", name, "duration_seconds", d, "err", err)
	}
	ch <- prometheus.MustNewConstMetric(scrapeDurationDesc, prometheus.GaugeValue, d, name)
	ch <- prometheus.MustNewConstMetric(scrapeSuccessDesc, prometheus.GaugeValue, ok, name)
}

// recoverDevice stops a panic in a collector's per-device goroutine, which
// safeUpdate cannot catch (it only covers the collector's own goroutine):
// one bad device must not take the exporter down.
func recoverDevice(logger *slog.Logger, what string) {
	if r := recover(); r != nil {
		logger.Error("collector panicked on one device; its series are missing this scrape", "device", what, "panic", r)
	}
}

// validLabel replaces invalid UTF-8 in a label value read from a device.
func validLabel(s string) string { return strings.ToValidUTF8(s, "?") }

// safeUpdate turns a collector panic into an error: a bug in one collector
// must not take the exporter down with it.
func safeUpdate(ctx context.Context, c Collector, ch chan<- prometheus.Metric) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("collector panicked: %v", r)
		}
	}()
	return c.Update(ctx, ch)
}
