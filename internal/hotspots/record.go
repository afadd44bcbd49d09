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

// Take waits delay, then asks the exporter at base for a profile of the
// next seconds, writes it to dir/rel and returns its record; a failure is
// the record's Error, not the caller's: a run is not lost for its profile.
func Take(ctx context.Context, c *http.Client, base string, delay time.Duration, seconds int, dir, rel string) *Record {
	select {
	case <-time.After(delay):
	case <-ctx.Done():
		return &Record{Error: "the run ended before its profile started"}
	}
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
