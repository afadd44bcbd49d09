package probe

import (
	"context"
	"sync"
)

// pollerPlacement is the poller's placement state: one PlacementReader
// through the poller's reader (chunked log reads, command statistics,
// capture), behind the poller's cache and single flight.
type pollerPlacement struct {
	once   sync.Once
	reader *PlacementReader
	flight flight[Placement]
}

// Placement returns the controller's Directives and FDP state, read at most
// once per MaxAge however many scrapes ask, sharing a read in flight. The
// Identify data comes from the probe's plan when the poller has one, so it
// is not sent again.
func (p *Poller) Placement(ctx context.Context) (Placement, error) {
	pp := &p.placement
	pp.once.Do(func() {
		var nsid uint32
		if len(p.nsids) > 0 {
			nsid = p.nsids[0]
		}
		pp.reader = NewPlacementReader(&p.reader, nsid)
		pp.flight.maxAge, pp.flight.now = p.maxAge, p.now
	})
	return pp.flight.get(ctx, p.name, func(ctx context.Context) (Placement, error) {
		if plan := p.Plan(); plan != nil {
			pp.reader.know(plan)
		}
		return pp.reader.Read(ctx)
	})
}
