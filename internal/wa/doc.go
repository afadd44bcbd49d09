// Package wa is walab's rolling write-amplification sampler: the in-process
// successor of seed 000's hourly calculate_wa.sh crontab.
//
// The sampler itself (sampler.go, ring.go, state.go) reads cumulative byte
// counters through Reader on its own interval (independent of scrapes),
// keeps a bounded ring of samples per device, and publishes
//
//	WA(window) = (media[last] - media[first]) / (host[last] - host[first])
//
// where first is the oldest sample inside the window. Windows are the
// configured durations (default 1h and 24h) plus "run", measured from a run
// mark (exporter start, or POST /api/v1/run-start).
//
// The package knows NVMe in one place: FromPollers (probe.go) is the
// exporter's Reader, over the fleet's pollers, with a per-device timeout,
// the NAND source's name and its read errors. Tests feed a ReaderFunc. The
// contract for any Reader:
//
//   - ReadCounters returns one entry per device, keyed by a stable, bounded
//     name such as "nvme0". That name becomes the device label.
//   - HostBytes and MediaBytes are cumulative since the drive was made, in
//     bytes. Media is everything the NAND absorbed (host + garbage
//     collection), so that media/host is the write amplification.
//   - Source names the counter source ("ocp_c0", "seed000_c0", ...). If it
//     changes for a device, the counters are not comparable and the device's
//     windows restart, exactly as when a counter goes backwards.
//   - A device that could not be read this time is left out or has OK false;
//     the sampler keeps its history but publishes no WA for it until it is
//     read again (a WA that stopped moving is not a WA). An error from
//     ReadCounters means no device was read at all; nothing changes.
//   - The sampler never calls ReadCounters concurrently with itself, so the
//     adapter needs no locking of its own for the sampler's sake.
package wa

import "context"

// Counters is one device's cumulative counters at one instant.
type Counters struct {
	HostBytes  uint64 // bytes the host asked the drive to write
	MediaBytes uint64 // bytes written to NAND (host + GC)
	Source     string // where the counters came from; a change restarts the windows
	OK         bool   // false: this device could not be read this time; skip it
	Err        error  // why OK is false, when known
}

// Reader reads every device's counters once.
type Reader interface {
	ReadCounters(ctx context.Context) (map[string]Counters, error)
}

// DeviceReader is a Reader that can also read some devices alone, so that
// a run-start for one device never waits for the others.
type DeviceReader interface {
	Reader
	ReadCountersOf(ctx context.Context, names []string) (map[string]Counters, error)
}

// ReaderFunc adapts a function to Reader.
type ReaderFunc func(ctx context.Context) (map[string]Counters, error)

// ReadCounters calls f.
func (f ReaderFunc) ReadCounters(ctx context.Context) (map[string]Counters, error) { return f(ctx) }
