package wa

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"
)

// Defaults, as in seed 000 (hourly WA over a 12-24 hour test) but sampled
// every minute so the 1h window slides instead of jumping.
const (
	DefaultInterval = 60 * time.Second
	// RunWindow is the window label of the since-run-start WA.
	RunWindow = "run"
)

// DefaultWindows are the rolling windows published when none are configured.
var DefaultWindows = []time.Duration{time.Hour, 24 * time.Hour}

// Config is the exporter's `wa:` YAML section.
//
//	wa:
//	  interval: 60s
//	  windows: [1h, 24h]
//	  state_file: /var/lib/walab/wa-state.bin   # none (the default): history in memory only
//	  persist_every: 1
type Config struct {
	Interval     time.Duration   `yaml:"interval"`
	Windows      []time.Duration `yaml:"windows"`
	StateFile    string          `yaml:"state_file"`
	PersistEvery int             `yaml:"persist_every"`
	// Persist false keeps the history in memory only, even with a
	// state_file. Without a state_file there is nothing to persist to:
	// each exporter names its own file (no shared default that a second,
	// throw-away exporter would adopt).
	Persist *bool `yaml:"persist"`
}

// Options builds sampler options from the section, filling defaults.
func (c Config) Options(r Reader, logger *slog.Logger) Options {
	o := Options{
		Reader:       r,
		Interval:     c.Interval,
		Windows:      c.Windows,
		StatePath:    c.StateFile,
		PersistEvery: c.PersistEvery,
		Logger:       logger,
	}
	if c.Persist != nil && !*c.Persist {
		o.StatePath = ""
	}
	return o
}

// Options configure a Sampler. Zero values take the defaults.
type Options struct {
	Reader       Reader
	Interval     time.Duration   // sampling interval; default 60s
	Windows      []time.Duration // rolling windows; default 1h, 24h
	StatePath    string          // state file; "" keeps history in memory only
	PersistEvery int             // write the state file every N samples; default 1
	Logger       *slog.Logger
	Now          func() time.Time // clock for Run and run marks; default time.Now
}

type window struct {
	name string
	span time.Duration
}

func (o *Options) normalize() ([]window, error) {
	if o.Reader == nil {
		return nil, errors.New("wa: no counter reader")
	}
	if o.Interval == 0 {
		o.Interval = DefaultInterval
	}
	if o.Interval < time.Second {
		return nil, fmt.Errorf("wa: interval %s is shorter than 1s", o.Interval)
	}
	if o.Interval > 24*time.Hour {
		return nil, fmt.Errorf("wa: interval %s is longer than 24h", o.Interval)
	}
	if len(o.Windows) == 0 {
		o.Windows = DefaultWindows
	}
	if o.PersistEvery <= 0 {
		o.PersistEvery = 1
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	ws := make([]window, 0, len(o.Windows))
	seen := map[string]bool{}
	for _, d := range o.Windows {
		if d < o.Interval {
			return nil, fmt.Errorf("wa: window %s is shorter than the sampling interval %s", d, o.Interval)
		}
		n := WindowName(d)
		if seen[n] {
			return nil, fmt.Errorf("wa: window %s configured twice", n)
		}
		seen[n] = true
		ws = append(ws, window{name: n, span: d})
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].span < ws[j].span })
	longest := ws[len(ws)-1].span
	if n := capacityFor(longest, o.Interval); n > MaxSamplesPerDevice {
		return nil, fmt.Errorf("wa: window %s at interval %s needs %d samples per device, more than the limit %d (%s of memory per device): shorten the window or lengthen the interval",
			WindowName(longest), o.Interval, n, MaxSamplesPerDevice, byteSize(MaxSamplesPerDevice*sampleSize))
	}
	return ws, nil
}

// MaxSamplesPerDevice bounds the ring of each device, hence the memory a
// window configuration can claim (2.4 MB per device): 69 days at the default
// 60 s interval. `windows: [100000h]` used to be accepted and then run the
// process out of memory.
const MaxSamplesPerDevice = 100_000

func byteSize(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// WindowName is the window label for a duration: the largest whole unit
// ("1h", "24h", "30m", "90s"), so labels stay short and stable.
func WindowName(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// capacityFor is the ring size per device: enough samples to span the longest
// window at the sampling interval, plus the sample at the window's far edge.
func capacityFor(longest, interval time.Duration) int {
	n := int(longest / interval)
	if longest%interval != 0 {
		n++
	}
	return n + 1
}
