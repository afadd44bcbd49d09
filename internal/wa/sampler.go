package wa

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/walab/walab/internal/safefile"
)

// glitchRounds is how many consecutive, mutually consistent readings below
// the last sample make a counter reset (a swapped drive); fewer are a
// glitch, not recorded.
const glitchRounds = 3

// runMark is where the "run" window starts: a time and the counters then.
type runMark struct {
	T       int64 // Unix ms
	Host    uint64
	Media   uint64
	Pending bool // no baseline yet: the next successful sample becomes it
	// Lost: the counters were reset after the mark; the run has no WA
	// until the next mark. The mark's time stays.
	Lost bool
}

type device struct {
	hist   *ring
	source string
	mark   runMark
	resets uint64
	// down: the last sampling round had no good reading of the device.
	down bool
	// suspect holds the consecutive readings below the history, oldest
	// first (see dropped); glitches counts the readings ignored so.
	suspect  []sample
	glitches uint64
}

// Sampler samples counters on its own interval and computes WA windows.
// It is safe for concurrent use: Run, Sample, Mark, the HTTP handler and
// Prometheus scrapes may overlap.
type Sampler struct {
	opts     Options
	windows  []window // ascending span
	capacity int      // ring size per device
	slackMS  int64    // tolerance at a window's far edge, for ticker jitter

	readMu sync.Mutex // one ReadCounters at a time

	mu      sync.Mutex
	devs    map[string]*device
	unsaved int
	// roundErr is the last round's read error (nil when it read);
	// roundAt when the last round ended (zero before the first).
	roundErr error
	roundAt  time.Time

	writeMu sync.Mutex // one state-file write at a time
	buf     []byte     // encode buffer, reused under writeMu
	writer  atomicWriter
	lock    *os.File // flock on StatePath+".lock"; nil without persistence

	saveMu     sync.Mutex
	saveErrors uint64    // failed state-file writes
	lastSaved  time.Time // last successful write; zero before the first
	saveErr    error     // the last write's error; nil once a write succeeds
}

// SaveError is a state-file write that failed; the samples are kept in
// memory and the next write tries again.
type SaveError struct{ Err error }

func (e *SaveError) Error() string { return "wa: save state: " + e.Err.Error() }
func (e *SaveError) Unwrap() error { return e.Err }

// New builds a sampler and, if a state file is configured, locks it and
// resumes from it. A walab state file that does not decode (truncated,
// corrupt, an older version) is logged and replaced by a fresh history.
// Anything else at the path (a symlink, FIFO, device node, directory, a
// file too large or without walab's header) is a *ForeignFileError and is
// left untouched; a state file locked by another exporter is an error too.
// Close releases the lock.
func New(opts Options) (*Sampler, error) {
	ws, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	longest := ws[len(ws)-1].span
	s := &Sampler{
		opts:     opts,
		windows:  ws,
		capacity: capacityFor(longest, opts.Interval),
		slackMS:  (opts.Interval / 2).Milliseconds(),
		devs:     map[string]*device{},
	}
	if opts.StatePath == "" {
		opts.Logger.Info("no wa.state_file: write-amplification history and run marks are kept in memory only and lost at a restart")
	}
	if opts.StatePath != "" {
		// Refuse a non-file at the path before anything is created beside
		// it (state_file: /dev/null must not leave /dev/null.lock behind).
		if fi, err := os.Lstat(opts.StatePath); err == nil {
			if err := safefile.Regular(opts.StatePath, fi.Mode()); err != nil {
				return nil, &ForeignFileError{Path: opts.StatePath, Err: err}
			}
		}
		lock, err := lockState(opts.StatePath, opts.Logger.Warn)
		if err != nil {
			return nil, err
		}
		s.lock = lock
		if err := s.restore(opts.Now()); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Close releases the state-file lock. It does not write the state: Run
// does that when its context ends.
func (s *Sampler) Close() error {
	if s.lock == nil {
		return nil
	}
	err := s.lock.Close()
	s.lock = nil
	return err
}

// Capacity is the number of samples kept per device.
func (s *Sampler) Capacity() int { return s.capacity }

// Interval is the sampling interval in use.
func (s *Sampler) Interval() time.Duration { return s.opts.Interval }

func (s *Sampler) longestMS() int64 { return s.windows[len(s.windows)-1].span.Milliseconds() }

// Run samples now and then every interval until ctx ends, then writes the
// state file one last time. Read errors are logged, never fatal. A state
// file that cannot be written is logged when saving starts failing and when
// it works again, not at every sample (the samples themselves are fine);
// walab_nvme_wa_state_save_errors_total counts every failure.
func (s *Sampler) Run(ctx context.Context) error {
	tick := time.NewTicker(s.opts.Interval)
	defer tick.Stop()
	for {
		err := s.Sample(ctx, s.opts.Now())
		var se *SaveError
		if err != nil && ctx.Err() == nil && !errors.As(err, &se) {
			s.opts.Logger.Warn("write-amplification sample failed", "err", err)
		}
		select {
		case <-ctx.Done():
			if err := s.flushIfDirty(); err != nil {
				s.opts.Logger.Warn("could not save write-amplification state on shutdown", "err", err)
			}
			return nil
		case <-tick.C:
		}
	}
}

// Health says whether the sampler works: an error when its last round
// could not read the counters, or when no round ended within three
// intervals (a stalled sampler: every WA window stops moving). Per-device
// failures are not its errors (their WA is absent, walab_nvme_source_up
// says why). Before the first round it is healthy.
func (s *Sampler) Health(now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.roundErr != nil:
		return s.roundErr
	case !s.roundAt.IsZero() && now.Sub(s.roundAt) > 3*s.opts.Interval:
		return fmt.Errorf("wa: no sampling round for %s (interval %s)", now.Sub(s.roundAt).Round(time.Second), s.opts.Interval)
	}
	return nil
}

// Sample reads every device once and records the readings as taken at now.
// Tests call it directly with a synthetic clock.
func (s *Sampler) Sample(ctx context.Context, now time.Time) error {
	s.readMu.Lock()
	readings, err := s.opts.Reader.ReadCounters(ctx)
	s.readMu.Unlock()
	if err != nil {
		err = fmt.Errorf("wa: read counters: %w", err)
		s.mu.Lock()
		s.roundErr, s.roundAt = err, s.opts.Now()
		s.mu.Unlock()
		return err
	}
	t := now.UnixMilli()
	s.mu.Lock()
	s.roundErr, s.roundAt = nil, s.opts.Now()
	read := make(map[string]bool, len(readings))
	for name, c := range readings {
		if c.OK && name != "" {
			read[name] = s.record(name, c, t)
		}
	}
	for name, d := range s.devs {
		d.down = !read[name]
	}
	s.prune(t)
	s.unsaved++
	persist := s.opts.StatePath != "" && s.unsaved >= s.opts.PersistEvery
	s.mu.Unlock()
	if persist {
		return s.Flush()
	}
	return nil
}

// record adds one reading and reports whether the device counts as read
// this round (false while its counters glitch); s.mu held.
func (s *Sampler) record(name string, c Counters, t int64) bool {
	d := s.devs[name]
	if d == nil {
		// First sight of the device: its run starts here.
		d = &device{hist: newRing(s.capacity), source: c.Source, mark: runMark{T: t, Host: c.HostBytes, Media: c.MediaBytes}}
		s.devs[name] = d
	}
	ref, have := d.hist.last()
	if have && t == ref.T {
		s.opts.Logger.Debug("write-amplification sample at the same instant as the last one; dropped", "device", name)
		return true
	}
	if have && t < ref.T {
		// The history holds samples from the future: the clock was ahead
		// (restored state) or stepped back. Keeping them would freeze every
		// window for the whole skew, so they go and sampling goes on.
		k := d.hist.firstAtOrAfter(t)
		s.opts.Logger.Warn("write-amplification samples dated after now dropped: the system clock stepped back or was ahead",
			"device", name, "dropped", d.hist.len()-k, "newest_dropped", time.UnixMilli(ref.T).UTC(), "now", time.UnixMilli(t).UTC())
		d.hist.truncate(k)
		ref, have = d.hist.last()
	}
	if d.mark.T > t {
		d.mark.T = t // a run mark in the future: its counters stand, its time cannot
	}
	if !have && !d.mark.Pending && !d.mark.Lost {
		ref, have = sample{T: d.mark.T, Host: d.mark.Host, Media: d.mark.Media}, true
	}
	smp := sample{T: t, Host: c.HostBytes, Media: c.MediaBytes}
	switch {
	case c.Source != d.source:
		s.reset(name, d, c.Source, nil, ref)
	case have && (smp.Host < ref.Host || smp.Media < ref.Media):
		if !s.dropped(name, d, smp, ref) {
			return false
		}
		s.reset(name, d, c.Source, d.suspect[:len(d.suspect)-1], ref)
	case len(d.suspect) > 0:
		s.opts.Logger.Info("write-amplification counters back after a glitch; the readings below them were ignored",
			"device", name, "ignored", len(d.suspect), "host_bytes", smp.Host, "media_bytes", smp.Media)
		d.suspect = nil
	}
	d.hist.push(smp)
	if d.mark.Pending {
		d.mark = runMark{T: t, Host: c.HostBytes, Media: c.MediaBytes}
	}
	return true
}

// dropped handles a reading below the last sample: a glitch (not
// recorded; false) until glitchRounds consecutive readings agree with each
// other, which is a reset (true). An all-zero reading (an emptied page)
// never starts a new baseline; s.mu held.
func (s *Sampler) dropped(name string, d *device, smp, ref sample) bool {
	if n := len(d.suspect); n > 0 && (smp.Host < d.suspect[n-1].Host || smp.Media < d.suspect[n-1].Media) {
		d.suspect = d.suspect[:0] // the drops disagree: start counting again
	}
	if smp.Host != 0 || smp.Media != 0 {
		d.suspect = append(d.suspect, smp)
	} else {
		d.suspect = d.suspect[:0]
	}
	if len(d.suspect) >= glitchRounds {
		return true
	}
	d.glitches++
	log := s.opts.Logger.Debug
	if !d.down {
		log = s.opts.Logger.Warn
	}
	log("write-amplification counters went backwards; reading ignored and WA absent until they come back (a glitch), or a reset if they stay there",
		"device", name, "host_bytes", smp.Host, "previous_host_bytes", ref.Host,
		"media_bytes", smp.Media, "previous_media_bytes", ref.Media, "rounds_to_reset", glitchRounds-len(d.suspect))
	return false
}

// reset restarts a device's windows from carry (older readings of the new
// counters, oldest first). The run mark keeps its time, but its counters
// belong to the old ones: the run has no WA until the next run-start; s.mu
// held.
func (s *Sampler) reset(name string, d *device, source string, carry []sample, ref sample) {
	last := sample{}
	if len(carry) > 0 {
		last = carry[len(carry)-1]
	}
	s.opts.Logger.Warn("write-amplification counters not comparable with the previous sample (drive swapped or source changed); windows reset, run WA absent until the next run-start",
		"device", name, "host_bytes", last.Host, "previous_host_bytes", ref.Host,
		"media_bytes", last.Media, "previous_media_bytes", ref.Media,
		"source", source, "previous_source", d.source)
	d.hist.clear()
	for _, c := range carry {
		d.hist.push(c)
	}
	d.suspect = nil
	d.resets++
	d.source = source
	if !d.mark.Pending {
		d.mark.Lost = true
	}
}

// prune drops samples older than the longest window, and devices that have
// not been read for that long, so a removed drive does not linger; s.mu held.
func (s *Sampler) prune(t int64) {
	cut := t - s.longestMS() - s.slackMS
	for name, d := range s.devs {
		d.hist.dropBefore(cut)
		// Keep a device whose run mark is recent even without samples: a
		// mark set just before a failed read must survive to the next one.
		if d.hist.len() == 0 && d.mark.T < cut {
			delete(s.devs, name)
		}
	}
}

// Glitching reports whether a reading of a device's counters (from
// source) is one the sampler calls a glitch: below the last sample it
// recorded from that source. A reading it has not taken yet (a scrape
// between its rounds) is judged the same way, so an emptied or zero-filled
// page is never exported as counters that went back. False for a device
// or source it has no sample of (it cannot tell).
func (s *Sampler) Glitching(name, source string, host, media uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.devs[name]
	if d == nil || d.source != source {
		return false
	}
	last, ok := d.hist.last()
	return ok && (host < last.Host || media < last.Media)
}

// WindowWA is one window's result for one device.
type WindowWA struct {
	Window  string
	Seconds float64 // span actually covered by the samples used
	WA      float64
	HasWA   bool // false when the host wrote nothing in the window
}

// DeviceWA is everything the sampler knows about one device.
type DeviceWA struct {
	Device     string
	Source     string
	Samples    int
	LastSample time.Time
	RunStart   time.Time
	RunPending bool
	// RunLost: the counters were reset after the run's mark (drive
	// swapped, source changed); the run has no WA until the next mark.
	RunLost bool
	Resets  uint64
	// Glitches counts readings ignored because the counters went
	// backwards without staying there.
	Glitches uint64
	// Down: the last sampling round could not read the device's counters;
	// its windows then carry no WA (HasWA false) until it reads again.
	Down    bool
	Windows []WindowWA // the configured windows in ascending order, then "run"
}

// Snapshot computes every device's windows from the latest sample backwards.
func (s *Sampler) Snapshot() []DeviceWA {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]DeviceWA, 0, len(s.devs))
	for name, d := range s.devs {
		last, ok := d.hist.last()
		if !ok {
			continue
		}
		r := DeviceWA{
			Device:     name,
			Source:     d.source,
			Samples:    d.hist.len(),
			LastSample: time.UnixMilli(last.T),
			RunStart:   time.UnixMilli(d.mark.T),
			RunPending: d.mark.Pending,
			RunLost:    d.mark.Lost,
			Resets:     d.resets,
			Glitches:   d.glitches,
			Down:       d.down,
			Windows:    make([]WindowWA, 0, len(s.windows)+1),
		}
		for _, w := range s.windows {
			first := d.hist.at(d.hist.firstAtOrAfter(last.T - w.span.Milliseconds() - s.slackMS))
			r.Windows = append(r.Windows, ratio(w.name, first, last))
		}
		if !d.mark.Pending && !d.mark.Lost {
			r.Windows = append(r.Windows, ratio(RunWindow, sample{T: d.mark.T, Host: d.mark.Host, Media: d.mark.Media}, last))
		}
		if d.down {
			for i := range r.Windows {
				r.Windows[i].WA, r.Windows[i].HasWA = 0, false
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	return out
}

// ratio is (media delta) / (host delta) between two samples. Deltas are
// taken in uint64, so only the final division rounds.
func ratio(name string, first, last sample) WindowWA {
	w := WindowWA{Window: name}
	if last.T <= first.T {
		return w
	}
	w.Seconds = float64(last.T-first.T) / 1000
	if last.Host <= first.Host || last.Media < first.Media {
		return w
	}
	w.WA = float64(last.Media-first.Media) / float64(last.Host-first.Host)
	w.HasWA = true
	return w
}

// Flush writes the state file now (no-op without one).
func (s *Sampler) Flush() error {
	if s.opts.StatePath == "" {
		return nil
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	s.buf = encodeState(s.buf[:0], s.stateLocked(s.opts.Now().UnixMilli()))
	pending := s.unsaved
	s.mu.Unlock()
	err := s.writer.write(s.opts.StatePath, s.buf)
	s.noteSave(err)
	if err != nil {
		return &SaveError{Err: err}
	}
	s.mu.Lock()
	s.unsaved -= pending
	s.mu.Unlock()
	return nil
}

// noteSave counts a write's outcome and logs once per change of state.
func (s *Sampler) noteSave(err error) {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	switch {
	case err != nil:
		s.saveErrors++
		if s.saveErr == nil {
			s.opts.Logger.Warn("cannot save write-amplification state; history is kept in memory and saving is retried at every sample",
				"path", s.opts.StatePath, "err", err)
		}
		s.saveErr = err
	default:
		if s.saveErr != nil {
			s.opts.Logger.Info("write-amplification state saved again", "path", s.opts.StatePath, "failed_saves", s.saveErrors)
		}
		s.saveErr = nil
		s.lastSaved = s.opts.Now()
	}
}

func (s *Sampler) flushIfDirty() error {
	s.mu.Lock()
	dirty := s.unsaved > 0
	s.mu.Unlock()
	if !dirty {
		return nil
	}
	return s.Flush()
}

// stateLocked copies the history out in the state-file shape; s.mu held.
func (s *Sampler) stateLocked(now int64) state {
	st := state{SavedAt: now, Devices: make([]deviceState, 0, len(s.devs))}
	for name, d := range s.devs {
		ds := deviceState{Name: name, Source: d.source, Resets: d.resets, Mark: d.mark, Samples: make([]sample, d.hist.len())}
		for i := range ds.Samples {
			ds.Samples[i] = d.hist.at(i)
		}
		st.Devices = append(st.Devices, ds)
	}
	sort.Slice(st.Devices, func(i, j int) bool { return st.Devices[i].Name < st.Devices[j].Name })
	return st
}

// restore loads the state file. A walab file that does not decode means a
// fresh start; a foreign file is returned as an error.
func (s *Sampler) restore(now time.Time) error {
	st, err := loadState(s.opts.StatePath, maxStateBytes(s.capacity))
	var foreign *ForeignFileError
	switch {
	case errors.Is(err, errNoState):
		s.opts.Logger.Info("no write-amplification state file; starting fresh", "path", s.opts.StatePath)
		return nil
	case errors.As(err, &foreign):
		return err
	case err != nil:
		s.opts.Logger.Warn("ignoring unusable write-amplification state file; starting fresh", "path", s.opts.StatePath, "err", err)
		return nil
	}
	nowMS := now.UnixMilli()
	cut := nowMS - s.longestMS() - s.slackMS
	kept, future := 0, 0
	for _, ds := range st.Devices {
		d := &device{hist: newRing(s.capacity), source: ds.Source, mark: ds.Mark, resets: ds.Resets}
		for _, smp := range ds.Samples {
			if smp.T > nowMS {
				future++ // the clock was ahead when it was taken; see record
				continue
			}
			if smp.T >= cut {
				d.hist.push(smp) // a full ring keeps the newest, which is what we want
			}
		}
		if d.mark.T > nowMS {
			d.mark.T = nowMS
		}
		if d.hist.len() == 0 && ds.Mark.Pending {
			continue
		}
		s.devs[ds.Name] = d
		kept += d.hist.len()
	}
	if future > 0 {
		s.opts.Logger.Warn("write-amplification state held samples dated after now; dropped them (the system clock was ahead or stepped back)",
			"path", s.opts.StatePath, "dropped", future, "saved_at", time.UnixMilli(st.SavedAt).UTC(), "now", now.UTC())
	}
	s.opts.Logger.Info("resumed write-amplification history", "path", s.opts.StatePath,
		"devices", len(s.devs), "samples", kept, "saved_at", time.UnixMilli(st.SavedAt).UTC())
	return nil
}
