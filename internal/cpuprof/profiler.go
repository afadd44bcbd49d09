package cpuprof

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure a Profiler.
type Options struct {
	Frequency int           // samples per second per CPU (perf's -F)
	Comms     []string      // comm names (/proc/PID/comm) of the processes sampled
	ProcFS    string        // default /proc
	Interval  time.Duration // how often the maps are drained (default 5 s)
	Window    int           // drains the ranking of Top covers (default 12: one minute)
	Logger    *slog.Logger
}

// Error kinds counted by Errors: a bounded set.
const (
	ErrStackLost    = "stack_lost"   // the stack map was full or its bucket taken: the sample has no stack
	ErrUnsymbolized = "unsymbolized" // the sample's own function could not be named
	ErrDrain        = "drain"        // reading the maps failed
	ErrProcesses    = "processes"    // finding the processes failed
	ErrCountsFull   = "counts_full"  // the counts map was full: the sample was not counted
)

// Sample is the samples of one process with one stack.
type Sample struct {
	PID    uint32
	Comm   string
	Frames []Frame // leaf first: the kernel's frames, then the process's
	Count  uint64
}

// FuncKey names a function.
type FuncKey struct{ Function, Module string }

// FuncCount is a function's self samples (its frame was the leaf).
type FuncCount struct {
	FuncKey
	Total  uint64 // since the profiler started
	Recent uint64 // in the last Window drains
}

// Profiler runs the sampler on the chosen processes and keeps the counts.
type Profiler struct {
	opts    Options
	sampler *Sampler
	sym     *Symbolizer

	mu      sync.Mutex
	total   uint64
	self    map[FuncKey]uint64
	pending map[FuncKey]uint64   // self samples since the last interval
	ring    []map[FuncKey]uint64 // of the last Window intervals
	errs    map[string]uint64
	pids    map[uint32]string // pid -> comm, the processes sampled
	// unsampled are the processes of the names that are not sampled.
	unsampled int
	records   map[*[]Sample]bool
	stop      chan struct{}
	done      chan struct{}
}

// Start opens the sampler (an *Error when it cannot) and drains it every
// Interval until Close.
func Start(o Options) (*Profiler, error) {
	if o.ProcFS == "" {
		o.ProcFS = "/proc"
	}
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	if o.Window <= 0 {
		o.Window = 12
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if len(o.Comms) == 0 {
		return nil, &Error{ReasonOther, fmt.Errorf("no process names to sample")}
	}
	if err := checkKernel(o.ProcFS); err != nil {
		return nil, err
	}
	s, err := Open(o.Frequency)
	if err != nil {
		return nil, err
	}
	p := &Profiler{opts: o, sampler: s, sym: NewSymbolizer(o.ProcFS), self: map[FuncKey]uint64{}, pending: map[FuncKey]uint64{},
		errs: map[string]uint64{}, pids: map[uint32]string{}, records: map[*[]Sample]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
	if err := p.sym.KernelErr(); err != nil {
		o.Logger.Warn("cpu profile: kernel frames will be unknown", "err", err)
	}
	p.mu.Lock()
	p.findProcesses()
	p.mu.Unlock()
	go p.loop()
	return p, nil
}

// Frequency is the sampling frequency in Hz per CPU.
func (p *Profiler) Frequency() int { return p.opts.Frequency }

// Comms is the process names sampled.
func (p *Profiler) Comms() []string { return p.opts.Comms }

func (p *Profiler) loop() {
	defer close(p.done)
	t := time.NewTicker(p.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.drain()
			p.ring = append(p.ring, p.pending)
			if len(p.ring) > p.opts.Window {
				p.ring = p.ring[1:]
			}
			p.pending = map[FuncKey]uint64{}
			p.findProcesses()
			p.mu.Unlock()
		}
	}
}

// findProcesses points the sampler at the running processes of the chosen
// names (caller holds mu).
func (p *Profiler) findProcesses() {
	ents, err := os.ReadDir(p.opts.ProcFS)
	if err != nil {
		p.errs[ErrProcesses]++
		p.opts.Logger.Warn("cpu profile: listing processes", "err", err)
		return
	}
	want := map[string]bool{}
	for _, c := range p.opts.Comms {
		want[c] = true
	}
	found := map[uint32]string{}
	var pids []uint32
	for _, e := range ents {
		pid, err := strconv.ParseUint(e.Name(), 10, 32)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.opts.ProcFS, e.Name(), "comm"))
		if c := strings.TrimSpace(string(b)); err == nil && want[c] {
			found[uint32(pid)] = c
			pids = append(pids, uint32(pid))
		}
	}
	// The pid map holds maxPIDs: the lowest pids are sampled, the rest
	// are counted as unsampled, never as sampled.
	slices.Sort(pids)
	p.unsampled = 0
	if len(pids) > maxPIDs {
		for _, pid := range pids[maxPIDs:] {
			delete(found, pid)
		}
		p.unsampled, pids = len(pids)-maxPIDs, pids[:maxPIDs]
		p.opts.Logger.Warn("cpu profile: more processes of the sampled names than the pid map holds: the rest are not sampled",
			"processes", len(pids)+p.unsampled, "sampled", maxPIDs)
	}
	failed, err := p.sampler.SetPIDs(pids)
	if err != nil {
		p.errs[ErrProcesses]++
		p.opts.Logger.Warn("cpu profile", "err", err)
	}
	for _, pid := range failed {
		delete(found, pid)
		p.unsampled++
	}
	p.pids = found
}

// Unsampled is the processes of the sampled names the profiler does not
// sample: beyond what its pid map holds, or refused by the kernel.
func (p *Profiler) Unsampled() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unsampled
}

// drain takes the sampler's counts, symbolizes them and adds them to the
// totals and to every recording (caller holds mu).
func (p *Profiler) drain() {
	method := p.sampler.DrainMethod()
	raw, err := p.sampler.Drain()
	if err != nil {
		p.errs[ErrDrain]++
		p.opts.Logger.Warn("cpu profile", "err", err)
	}
	if m := p.sampler.DrainMethod(); m != method {
		p.opts.Logger.Info("cpu profile: the kernel has no lookup-and-delete for hash maps (before Linux 5.14); the counts are read, then deleted", "drain", m)
	}
	if lost, err := p.sampler.Lost(); err != nil {
		p.errs[ErrDrain]++
		p.opts.Logger.Warn("cpu profile", "err", err)
	} else {
		p.errs[ErrCountsFull] = lost
	}
	for _, r := range raw {
		s := p.symbolize(r)
		p.total += s.Count
		leaf := FuncKey{Function: Unknown, Module: Unknown}
		if len(s.Frames) > 0 {
			leaf = FuncKey{s.Frames[0].Function, s.Frames[0].Module}
		}
		if leaf.Function == Unknown {
			p.errs[ErrUnsymbolized] += s.Count
		}
		p.self[leaf] += s.Count
		p.pending[leaf] += s.Count
		for rec := range p.records {
			*rec = append(*rec, s)
		}
	}
	p.sym.Forget()
}

// symbolize turns a raw sample into frames; a return address (every user
// frame but the leaf) is looked up one byte back, inside its call.
func (p *Profiler) symbolize(r RawSample) Sample {
	s := Sample{PID: r.PID, Comm: p.pids[r.PID], Count: r.Count}
	const efault = -int32(syscall.EFAULT) // no stack of that kind: not an error
	if r.StackLost || (r.KernelID < 0 && r.KernelID != efault) || (r.UserID < 0 && r.UserID != efault) {
		p.errs[ErrStackLost] += r.Count
	}
	for _, pc := range r.Kernel {
		s.Frames = append(s.Frames, p.sym.Kernel(pc))
	}
	for i, pc := range r.User {
		if i > 0 || len(r.Kernel) > 0 {
			pc--
		}
		f, _ := p.sym.User(r.PID, pc)
		s.Frames = append(s.Frames, f)
	}
	return s
}

// Totals are the samples since the start, by kind of error too.
func (p *Profiler) Totals() (samples uint64, errs map[string]uint64, processes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	errs = map[string]uint64{}
	for k, v := range p.errs {
		errs[k] = v
	}
	return p.total, errs, len(p.pids)
}

// Unnamed is why frames of each kind ("kernel", "user") cannot be named
// (Symbolizer.Unnamed); a kind that can be is absent.
func (p *Profiler) Unnamed() map[string]string { return p.sym.Unnamed() }

// Top is the n functions with the most self samples in the last Window
// intervals and the current one (ties by name), with their totals since
// the start.
func (p *Profiler) Top(n int) []FuncCount {
	p.mu.Lock()
	defer p.mu.Unlock()
	recent := maps.Clone(p.pending)
	for _, m := range p.ring {
		for k, v := range m {
			recent[k] += v
		}
	}
	out := make([]FuncCount, 0, len(recent))
	for k, v := range recent {
		out = append(out, FuncCount{FuncKey: k, Total: p.self[k], Recent: v})
	}
	sortCounts(out, func(c FuncCount) uint64 { return c.Recent })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func sortCounts(c []FuncCount, by func(FuncCount) uint64) {
	sort.Slice(c, func(i, j int) bool {
		if by(c[i]) != by(c[j]) {
			return by(c[i]) > by(c[j])
		}
		if c[i].Function != c[j].Function {
			return c[i].Function < c[j].Function
		}
		return c[i].Module < c[j].Module
	})
}

// Record returns the samples taken in the next d (or until ctx ends).
func (p *Profiler) Record(ctx context.Context, d time.Duration) []Sample {
	rec := &[]Sample{}
	p.mu.Lock()
	p.drain() // what was sampled before belongs to the totals only
	p.records[rec] = true
	p.mu.Unlock()
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drain()
	delete(p.records, rec)
	return *rec
}

// Close stops sampling.
func (p *Profiler) Close() error {
	close(p.stop)
	<-p.done
	return p.sampler.Close()
}
