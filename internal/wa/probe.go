package wa

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/walab/walab/internal/nvme/probe"
)

// FromPollers adapts the probe's pollers to the sampler's Reader. It reads through the
// same cache as the scrapes. A device without a NAND counter (source none)
// is left out: it has no WA. A device that failed, whose NAND source failed
// (Sample.SourceErr), or whose counters no longer fit 64 bits, is reported
// with OK false: its history is kept and its WA is absent until it reads.
//
// timeout (when > 0) bounds each device's wait: a device whose read takes
// longer is reported with OK false for this round (its read goes on in the
// background and serves a later call), so one hung controller never holds
// up the other devices' samples or a run-start mark.
func FromPollers(pollers []*probe.Poller, timeout time.Duration) DeviceReader {
	return pollerReader{pollers: pollers, timeout: timeout}
}

type pollerReader struct {
	pollers []*probe.Poller
	timeout time.Duration
}

func (r pollerReader) ReadCounters(ctx context.Context) (map[string]Counters, error) {
	return r.read(ctx, r.pollers)
}

// ReadCountersOf reads the named devices only; unknown names are left out.
func (r pollerReader) ReadCountersOf(ctx context.Context, names []string) (map[string]Counters, error) {
	var ps []*probe.Poller
	for _, p := range r.pollers {
		if slices.Contains(names, p.Name()) {
			ps = append(ps, p)
		}
	}
	return r.read(ctx, ps)
}

func (r pollerReader) read(ctx context.Context, pollers []*probe.Poller) (map[string]Counters, error) {
	out := make(map[string]Counters, len(pollers))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range pollers {
		wg.Go(func() {
			dctx, cancel := ctx, context.CancelFunc(func() {})
			if r.timeout > 0 {
				dctx, cancel = context.WithTimeout(ctx, r.timeout)
			}
			defer cancel()
			c, keep := countersOf(p.Sample(dctx))
			if !keep {
				return
			}
			mu.Lock()
			out[p.Name()] = c
			mu.Unlock()
		})
	}
	wg.Wait()
	return out, nil
}

func countersOf(s *probe.Sample, err error) (Counters, bool) {
	if err != nil {
		return Counters{Err: err}, true // OK false: skipped, history kept, WA absent
	}
	if s.SourceErr != nil {
		return Counters{Err: s.SourceErr}, true
	}
	if s.MediaBytes == nil {
		return Counters{}, false
	}
	host, ok1 := s.HostBytes.Uint64()
	media, ok2 := s.MediaBytes.Uint64()
	return Counters{HostBytes: host, MediaBytes: media, Source: s.Source, OK: ok1 && ok2}, true
}
