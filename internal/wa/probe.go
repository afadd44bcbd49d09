package wa

import (
	"context"
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
func FromPollers(pollers []*probe.Poller, timeout time.Duration) Reader {
	return ReaderFunc(func(ctx context.Context) (map[string]Counters, error) {
		out := make(map[string]Counters, len(pollers))
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, p := range pollers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dctx, cancel := ctx, context.CancelFunc(func() {})
				if timeout > 0 {
					dctx, cancel = context.WithTimeout(ctx, timeout)
				}
				defer cancel()
				c, keep := countersOf(p.Sample(dctx))
				if !keep {
					return
				}
				mu.Lock()
				out[p.Name()] = c
				mu.Unlock()
			}()
		}
		wg.Wait()
		return out, nil
	})
}

func countersOf(s *probe.Sample, err error) (Counters, bool) {
	if err != nil || s.SourceErr != nil {
		return Counters{}, true // OK false: skipped, history kept, WA absent
	}
	if s.MediaBytes == nil {
		return Counters{}, false
	}
	host, ok1 := s.HostBytes.Uint64()
	media, ok2 := s.MediaBytes.Uint64()
	return Counters{HostBytes: host, MediaBytes: media, Source: s.Source, OK: ok1 && ok2}, true
}
