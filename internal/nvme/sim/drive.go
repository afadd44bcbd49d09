package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/walab/walab/internal/ftl"
	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/simload"
	"github.com/walab/walab/internal/simload/hostrate"
	"github.com/walab/walab/internal/simload/rules"
)

// Model is the model number every simulated controller reports.
const Model = "walab simulated NVMe"

// maxStep caps the simulated catch-up after a long pause (a suspended host):
// the skipped time is counted, not ground through.
const maxStep = 5 * time.Minute

// Drive is a simulated controller with one namespace (NSID 1) in endurance
// group 1. It implements admin.Backend and is safe for concurrent use.
type Drive struct {
	cfg   Config
	clock func() time.Time
	log   *slog.Logger

	mu        sync.Mutex
	model     *ftl.Model
	gen       simload.Generator
	rules     *rules.Table
	openIDs   []uint16 // stream ids the rule table uses (the streams a host would open)
	disk      *hostrate.Diskstats
	placement bool
	closed    bool

	last       time.Time
	simSeconds float64 // simulated time since power-on
	skipped    float64 // real seconds not simulated (pauses longer than maxStep)
	owed       float64 // model bytes of host writes due but not yet issued
	commands   uint64  // model host write commands
	precond    uint64  // model pages Precondition wrote (since this process)
	live       LiveMap // the filesystem's layout, for Precondition (SetLiveMap)
	classPages []uint64
	placed     [256][2]uint64 // stream id (0: no directive) -> model write commands, pages
	lastErr    string
	feedErr    error      // the filesystem feeding the drive stopped (FeedFailed)
	base       savedState // lifetime counters before this process (StateFile)
	saved      savedState // what the state file holds now

	stop chan struct{}
	done chan struct{}
}

// Option adjusts New.
type Option func(*Drive)

// WithClock injects the clock (tests); it also turns the background ticker off,
// so the simulation advances only when the drive is read.
func WithClock(now func() time.Time) Option {
	return func(d *Drive) { d.clock = now; zero := time.Duration(0); d.cfg.Tick = &zero }
}

// WithLogger sets the logger for background errors.
func WithLogger(l *slog.Logger) Option { return func(d *Drive) { d.log = l } }

// New builds a drive from a configuration (defaults are applied here), fills
// it to the workload's starting fill and starts its clock.
func New(cfg Config, opts ...Option) (*Drive, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	table, err := cfg.rules()
	if err != nil {
		return nil, err
	}
	mc, err := cfg.modelConfig(int(table.MaxID()) + 1)
	if err != nil {
		return nil, err
	}
	model, err := ftl.New(mc)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	var gen simload.Generator = fsFeed{}
	if !cfg.FS.Enabled() {
		if gen, err = simload.New(cfg.Workload, mc.LogicalPages, table, cfg.Seed); err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
	}
	d := &Drive{cfg: cfg, clock: time.Now, log: slog.New(slog.DiscardHandler), model: model, gen: gen, rules: table,
		placement: cfg.Placement.Streams, classPages: make([]uint64, len(gen.Classes()))}
	for _, o := range opts {
		o(d)
	}
	seen := map[uint8]bool{}
	for _, r := range table.List() {
		if r.Stream != 0 && !seen[r.Stream] {
			seen[r.Stream] = true
			d.openIDs = append(d.openIDs, uint16(r.Stream))
		}
	}
	if cfg.Diskstats.Device != "" {
		if d.disk, err = hostrate.NewDiskstats(cfg.Diskstats.ProcFS, cfg.Diskstats.Device); err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		if _, err := d.disk.Delta(); err != nil { // baseline; a missing device is a config error
			return nil, fmt.Errorf("sim: %w", err)
		}
	}
	if cfg.StateFile != "" {
		if err := d.loadState(); err != nil {
			return nil, err
		}
	}
	for _, op := range gen.Prefill() {
		if err := d.apply(op); err != nil {
			return nil, fmt.Errorf("sim: prefill: %w", err)
		}
	}
	d.last = d.clock()
	if *d.cfg.Tick > 0 {
		d.stop, d.done = make(chan struct{}), make(chan struct{})
		go d.tick(*d.cfg.Tick)
	}
	return d, nil
}

func (d *Drive) tick(every time.Duration) {
	defer close(d.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
			d.mu.Lock()
			if err := d.advance(); err != nil {
				d.log.Warn("simulated drive", "device", d.cfg.Name, "err", err)
			}
			d.mu.Unlock()
		}
	}
}

// apply issues one op to the model and counts it.
func (d *Drive) apply(op simload.Op) error {
	n, err := simload.Apply(d.model, op, d.placement)
	if err != nil {
		return err
	}
	if !op.Trim {
		d.commands++
		if int(op.Class) < len(d.classPages) {
			d.classPages[op.Class] += uint64(n)
		}
		s := uint8(0)
		if d.placement {
			s = op.Stream
		}
		d.placed[s][0]++
		d.placed[s][1] += uint64(n)
	}
	return nil
}

// PlacedWrite is the write commands the drive received with one stream id
// (0: without a directive), in full-scale units, since it started: the
// simulator knows the stream of every write it models, as the placement
// tracer learns it from the kernel for a real drive.
type PlacedWrite struct {
	Stream          uint16
	Commands, Bytes uint64
}

// PlacedWrites advances the simulation and returns its write commands by
// stream, in stream order.
func (d *Drive) PlacedWrites() []PlacedWrite {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.advance()
	var out []PlacedWrite
	sc, ps := d.cfg.Scale, uint64(d.cfg.PageSize)
	for s, c := range d.placed {
		if c[0] > 0 {
			out = append(out, PlacedWrite{Stream: uint16(s), Commands: c[0] * sc, Bytes: c[1] * ps * sc})
		}
	}
	return out
}

// advance runs the simulation up to the clock. The caller holds d.mu.
func (d *Drive) advance() error {
	if d.closed {
		return errors.New("sim: drive closed")
	}
	now := d.clock()
	dt := now.Sub(d.last)
	d.last = now
	if dt <= 0 {
		return nil
	}
	if dt > maxStep {
		d.skipped += (dt - maxStep).Seconds()
		dt = maxStep
	}
	simDt := dt.Seconds() * d.cfg.SpeedUp
	d.simSeconds += simDt
	scale := float64(d.cfg.Scale)
	if d.disk != nil {
		b, err := d.disk.Delta()
		if err != nil {
			d.lastErr = err.Error()
			return fmt.Errorf("sim: host rate: %w", err)
		}
		d.owed += float64(b) * d.cfg.SpeedUp / scale
	} else {
		d.owed += float64(d.cfg.Rate) / scale * simDt
	}
	if d.cfg.FS.Enabled() {
		return nil // the filesystem writes; no generator
	}
	page := float64(d.cfg.PageSize)
	for d.owed >= page {
		op := d.gen.Next()
		if err := d.apply(op); err != nil {
			d.lastErr = err.Error()
			return fmt.Errorf("sim: %w", err)
		}
		if !op.Trim {
			d.owed -= float64(op.Pages) * page
		}
	}
	d.lastErr = ""
	return nil
}

// Exec answers one admin command (admin.Backend). The guard in admin.Device
// has already refused anything that is not read-only.
func (d *Drive) Exec(ctx context.Context, cmd admin.Command) (admin.Result, error) {
	if err := ctx.Err(); err != nil {
		return admin.Result{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.advance(); err != nil && d.closed {
		return admin.Result{}, err
	}
	if d.feedErr != nil {
		return admin.Result{}, d.feedErr
	}
	return d.exec(cmd)
}

// SetPlacement switches placement at run time. Turning it off seals every
// stream's open block, as a drive does when its streams are released, and
// sends all later writes to one open block.
func (d *Drive) SetPlacement(streams bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.advance() // account the traffic so far under the old setting
	if d.placement && !streams {
		for s := 1; s < d.model.Config().Streams; s++ {
			d.model.Seal(s)
		}
	}
	d.placement = streams
}

// Placement reports whether placement (streams) is on.
func (d *Drive) Placement() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.placement
}

// Close stops the background goroutine. Later commands fail.
func (d *Drive) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.persist(d.stats())
	d.mu.Unlock()
	if d.stop != nil {
		close(d.stop)
		<-d.done
	}
	return nil
}

// Name is the configured controller name.
func (d *Drive) Name() string { return d.cfg.Name }

// Config returns the effective configuration (defaults applied).
func (d *Drive) Config() Config { return d.cfg }

// Stats is the drive's state in full-scale units (model counts x scale).
type Stats struct {
	Name              string            `json:"name"`
	Simulated         bool              `json:"simulated"`
	Placement         bool              `json:"placement"`
	OpenStreams       int               `json:"open_streams"`
	Workload          string            `json:"workload"`
	GCPolicy          string            `json:"gc_policy"`
	Scale             uint64            `json:"scale"`
	CapacityBytes     uint64            `json:"capacity_bytes"`
	SpareFactor       float64           `json:"spare_factor"`
	SimulatedSeconds  float64           `json:"simulated_seconds"`
	SkippedSeconds    float64           `json:"skipped_seconds"`
	HostBytes         uint64            `json:"host_written_bytes"`
	PreconditionBytes uint64            `json:"precondition_written_bytes"` // of HostBytes, Precondition's fills since the process started
	MediaBytes        uint64            `json:"media_written_bytes"`
	GCBytes           uint64            `json:"gc_written_bytes"`
	TrimmedBytes      uint64            `json:"trimmed_bytes"`
	HostWriteCommands uint64            `json:"host_write_commands"`
	Erases            uint64            `json:"erases"`
	WriteAmp          float64           `json:"write_amplification"`
	Fill              float64           `json:"fill_ratio"`
	FreeBlocks        int               `json:"free_blocks"`
	ClassBytes        map[string]uint64 `json:"class_written_bytes"`
	LastError         string            `json:"last_error,omitempty"`
}

// Stats advances the simulation and returns its state.
func (d *Drive) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.advance()
	return d.stats()
}

func (d *Drive) stats() Stats {
	c := d.model.Counters()
	ps, sc := uint64(d.cfg.PageSize), d.cfg.Scale
	s := Stats{
		Name: d.cfg.Name, Simulated: true, Placement: d.placement, OpenStreams: d.openStreams(),
		Workload: d.gen.Name(), GCPolicy: d.cfg.GCPolicy, Scale: sc,
		CapacityBytes: uint64(d.model.Config().LogicalPages) * ps * sc, SpareFactor: d.cfg.SpareFactor,
		SimulatedSeconds: d.simSeconds, SkippedSeconds: d.skipped,
		HostBytes: d.base.HostBytes + c.HostPages*ps*sc, MediaBytes: d.base.MediaBytes + c.NANDPages*ps*sc,
		PreconditionBytes: d.precond * ps * sc,
		GCBytes:           d.base.GCBytes + c.GCPages*ps*sc, TrimmedBytes: d.base.TrimmedBytes + c.TrimmedPages*ps*sc,
		HostWriteCommands: d.base.HostWriteCommands + d.commands*sc, Erases: d.base.Erases + c.Erases*sc,
		WriteAmp: c.WA(), Fill: float64(c.ValidPages) / float64(d.model.Config().LogicalPages),
		FreeBlocks: d.model.FreeBlocks(), ClassBytes: map[string]uint64{}, LastError: d.lastErr,
	}
	for i, name := range d.gen.Classes() {
		s.ClassBytes[name] = d.classPages[i] * ps * sc
	}
	if math.IsNaN(s.Fill) {
		s.Fill = 0
	}
	d.persist(s)
	return s
}

func (d *Drive) openStreams() int {
	if !d.placement {
		return 0
	}
	return len(d.openIDs)
}

// CheckModel runs the FTL invariant checker (tests).
func (d *Drive) CheckModel() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.model.Check()
}
