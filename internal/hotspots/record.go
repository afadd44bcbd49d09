package hotspots

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// RecordTop is how many functions a run's record keeps.
const RecordTop = 20

// Record is what an experiment keeps of one run's profile: the pprof
// file, the samples and the top functions; Error says why there is none.
type Record struct {
	File    string  `json:"file,omitempty"` // relative to the experiment's output directory
	Seconds float64 `json:"seconds,omitempty"`
	Total   int64   `json:"samples,omitempty"`
	Top     []Func  `json:"top,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// Profile is the record as a Profile (its top functions only); nil when
// it has none.
func (r *Record) Profile() *Profile {
	if r == nil || r.Error != "" {
		return nil
	}
	return &Profile{Funcs: r.Top, Total: r.Total, Seconds: r.Seconds, Partial: true}
}

// Take asks the exporter at base for a profile of the next seconds,
// writes it to dir/rel and returns its record; a failure is the record's
// Error, not the caller's: a run is not lost for its profile.
func Take(ctx context.Context, c *http.Client, base string, seconds int, dir, rel string) *Record {
	raw, p, err := Fetch(ctx, c, base, seconds)
	if err != nil {
		return &Record{Error: err.Error()}
	}
	if err := os.WriteFile(filepath.Join(dir, rel), raw, 0o644); err != nil {
		return &Record{Error: err.Error()}
	}
	if len(p.Funcs) > RecordTop {
		p.Funcs = p.Funcs[:RecordTop]
	}
	return &Record{File: rel, Seconds: p.Seconds, Total: p.Total, Top: p.Funcs}
}

// Start schedules a run's profile: seconds of it from the middle of a run
// expected to last expected (from its start if the run is shorter, then
// for the whole run), through c with the timeout the request needs.
// Finish, called when the run has ended, waits for a profile under way
// and returns the record; a profile not started by then is not taken
// (its record says so).
func Start(ctx context.Context, c *http.Client, base string, expected time.Duration, seconds int, dir, rel string) (finish func() *Record) {
	d := time.Duration(seconds) * time.Second
	if expected > 0 && expected < d {
		d = expected.Truncate(time.Second)
		seconds = max(int(d/time.Second), 1)
	}
	delay := max((expected-d)/2, 0)
	client := &http.Client{Transport: c.Transport, Timeout: time.Duration(seconds)*time.Second + time.Minute}
	ctx, cancel := context.WithCancel(ctx)
	at := time.Now().Add(delay)
	done := make(chan *Record, 1)
	go func() {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			done <- &Record{Error: "the run ended before its profile started"}
			return
		}
		done <- Take(ctx, client, base, seconds, dir, rel)
	}()
	return func() *Record {
		if time.Now().Before(at) {
			cancel()
		}
		r := <-done
		cancel()
		return r
	}
}
