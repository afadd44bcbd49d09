package wa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"time"
)

// RunStartPath is where the exporter mounts Handler.
const RunStartPath = "/api/v1/run-start"

// Mark is one device's run start, as the HTTP API reports it.
type Mark struct {
	Device  string    `json:"device"`
	Start   time.Time `json:"start"`
	Seconds float64   `json:"start_timestamp_seconds"`
	// Pending: the counters could not be read at the mark; the next
	// successful sample becomes the baseline (and the start).
	Pending bool `json:"pending"`
	// Error says why a pending mark could not take its baseline at the
	// call (only in a run-start answer).
	Error string `json:"error,omitempty"`
	// Lost: the counters were reset after the mark (drive swapped, source
	// changed): the run has no WA until the next run-start.
	Lost bool `json:"lost,omitempty"`
}

// ErrUnknownDevice is returned by MarkRunStart for a device the sampler has
// never read.
type ErrUnknownDevice string

func (e ErrUnknownDevice) Error() string { return fmt.Sprintf("unknown device %q", string(e)) }

// MarkRunStart starts a new run for one device ("" = every device) now. It
// reads the counters at once so the run's baseline is the moment of the
// call, not the next tick (only the device asked for, when the Reader can:
// a hung neighbour does not slow it); a device that fails that read gets a
// pending mark, and is in the answer with the reason (Mark.Error). When the
// state file cannot be written the marks are set in memory and returned
// together with a *SaveError: a restart would lose them.
func (s *Sampler) MarkRunStart(ctx context.Context, dev string) ([]Mark, error) {
	now := s.opts.Now()
	readings, readErr := s.readForMark(ctx, dev)
	t := now.UnixMilli()
	s.mu.Lock()
	names, err := s.markNames(dev, readings)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	why := map[string]string{}
	for _, n := range names {
		c, ok := readings[n]
		d := s.devs[n]
		if d == nil {
			d = &device{hist: newRing(s.capacity), source: c.Source}
			s.devs[n] = d
		}
		if ok && c.OK && c.Source == d.source && !d.below(c) {
			d.mark = runMark{T: t, Host: c.HostBytes, Media: c.MediaBytes}
		} else {
			// Unreadable now, a source change the next sample will treat
			// as a reset anyway, or counters below the history (a glitch,
			// or a reset not yet confirmed): baseline from the next sample.
			d.mark = runMark{T: t, Pending: true}
			why[n] = pendingReason(c, ok, readErr)
		}
		s.opts.Logger.Info("run start marked", "device", n, "pending", d.mark.Pending, "why", why[n])
	}
	s.unsaved++
	s.mu.Unlock()
	var saveErr error
	if err := s.Flush(); err != nil {
		s.opts.Logger.Warn("run start marked in memory but not saved: a restart would lose it", "err", err)
		saveErr = err
	}
	var out []Mark
	for _, m := range s.Marks() {
		if slices.Contains(names, m.Device) {
			m.Error = why[m.Device]
			out = append(out, m)
		}
	}
	return out, saveErr
}

// readForMark reads the counters for a mark: dev alone when the Reader
// can, else every device. A failed read is logged, and returned.
func (s *Sampler) readForMark(ctx context.Context, dev string) (map[string]Counters, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	var readings map[string]Counters
	var err error
	if dr, ok := s.opts.Reader.(DeviceReader); ok && dev != "" {
		readings, err = dr.ReadCountersOf(ctx, []string{dev})
	} else {
		readings, err = s.opts.Reader.ReadCounters(ctx)
	}
	if err != nil {
		s.opts.Logger.Warn("run-start mark: counters unreadable; baseline taken at the next sample", "err", err)
		return nil, err
	}
	return readings, nil
}

// markNames are the devices a mark for dev covers: dev (an error if the
// sampler never read it and cannot read it now), or every device the
// sampler knows or the reader reported, readable or not; s.mu held.
func (s *Sampler) markNames(dev string, readings map[string]Counters) ([]string, error) {
	if dev != "" {
		_, known := s.devs[dev]
		if c, ok := readings[dev]; !known && !(ok && c.OK) {
			return nil, ErrUnknownDevice(dev)
		}
		return []string{dev}, nil
	}
	seen := map[string]bool{}
	for n := range s.devs {
		seen[n] = true
	}
	for n := range readings {
		if n != "" {
			seen[n] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// pendingReason says why a mark could not take its baseline now.
func pendingReason(c Counters, read bool, readErr error) string {
	switch {
	case readErr != nil:
		return "counters unreadable: " + readErr.Error()
	case !read:
		return "counters not read"
	case !c.OK && c.Err != nil:
		return "counters unreadable: " + c.Err.Error()
	case !c.OK:
		return "counters unreadable"
	}
	return "counters below the history or from another source; baseline at the next good sample"
}

// below reports whether c reads lower than the device's last sample.
func (d *device) below(c Counters) bool {
	last, ok := d.hist.last()
	return ok && (c.HostBytes < last.Host || c.MediaBytes < last.Media)
}

// Marks lists every device's current run start.
func (s *Sampler) Marks() []Mark {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Mark, 0, len(s.devs))
	for n, d := range s.devs {
		ts := time.UnixMilli(d.mark.T).UTC()
		out = append(out, Mark{Device: n, Start: ts, Seconds: float64(d.mark.T) / 1000, Pending: d.mark.Pending, Lost: d.mark.Lost})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	return out
}

type marksResponse struct {
	Marks []Mark `json:"marks"`
}

type errorResponse struct {
	Error string `json:"error"`
	// Marks are the marks set in memory when they could not be persisted.
	Marks []Mark `json:"marks,omitempty"`
}

// Handler serves RunStartPath: POST marks a run start (?device=nvme0 for
// one device, else all) and answers with the new marks; GET lists the marks.
func (s *Sampler) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			writeJSON(w, http.StatusOK, marksResponse{Marks: s.Marks()})
		case http.MethodPost:
			marks, err := s.MarkRunStart(r.Context(), r.URL.Query().Get("device"))
			if _, unknown := err.(ErrUnknownDevice); unknown {
				writeJSON(w, http.StatusNotFound, errorResponse{Error: err.Error()})
				return
			}
			var se *SaveError
			if errors.As(err, &se) {
				// The mark holds until a restart; the caller must know that it
				// does not survive one (a full disk, a read-only directory).
				writeJSON(w, http.StatusInternalServerError, errorResponse{
					Error: "run start marked in memory but not persisted (a restart loses it): " + err.Error(), Marks: marks})
				return
			}
			if err != nil {
				writeJSON(w, http.StatusInternalServerError, errorResponse{Error: err.Error()})
				return
			}
			writeJSON(w, http.StatusOK, marksResponse{Marks: marks})
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			writeJSON(w, http.StatusMethodNotAllowed, errorResponse{Error: "method " + r.Method + " not allowed; use GET or POST"})
		}
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
