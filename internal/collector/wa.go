package collector

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/wa"
)

// The WA sampler's series (walab_nvme_write_amplification and its
// windows, run marks, state file) as a collector: --no-collector.wa turns
// the sampler off, and walab_scrape_collector_success{collector="wa"} is 0
// while it does not work (Sampler.Health: its last round could not read,
// or no round ended in three intervals).
func init() {
	Register("wa", true, func(env Env) (Collector, error) {
		return waCollector{s: env.WA, now: time.Now}, nil
	})
}

type waCollector struct {
	s   *wa.Sampler
	now func() time.Time
}

func (c waCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	if c.s == nil {
		return ErrNoData // the app built no sampler (no collector set of its own)
	}
	c.s.Collect(ch)
	return c.s.Health(c.now())
}
