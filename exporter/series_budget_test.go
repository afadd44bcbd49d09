package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
)

// seriesBudget is the walab_ series one database host costs a fleet's
// metrics store with the default collectors and the default IRQ view (one
// interrupt counter a device, irq.per_cpu off), on the ScrapeAll fixture:
// 256 CPUs, 24 drives with 33 queues each, a 64-queue NIC. Of its 8,457:
// irq 5,460 (per-line affinity and NUMA 3 x 856, softirqs and CPU nodes
// 256 x 11), cpu 2,048, nvme 516, streams 233, wa 160, the rest 46
// (collector success and duration, filesystem, network, build info). The Go runtime's own
// series (about 50, set by the toolchain) are not counted. Growing it is a
// decision: raise the number here and in internal/collector/doc_bench.go.
const seriesBudget = 8_457

// TestSeriesBudget fails when the default exporter grows past the budget on
// the worst-case fixture: interrupts on every CPU of every line (the
// per-CPU view's 224,571 IRQ series) and the WA sampler's series present.
func TestSeriesBudget(t *testing.T) {
	h := genAllHost(t)
	a := newFixtureApp(t, h, false, collector.DefaultEnabled)
	t.Cleanup(func() {
		for _, name := range collector.Names() {
			_ = collector.SetEnabled(name, collector.DefaultEnabled(name))
		}
	})
	scrapeAll(t, a.Handler())
	writeAllInterrupts(t, h, 5)
	scrapeAll(t, a.Handler())
	writeAllInterrupts(t, h, 10)
	body := scrapeAll(t, a.Handler())
	// Booleans, not require.Contains: a failure must not print 8,500 lines.
	require.False(t, bytes.Contains(body, []byte("walab_irq_interrupts_total{")), "per-CPU IRQ detail is off by default")
	require.True(t, bytes.Contains(body, []byte(`walab_irq_device_interrupts_total{device="nvme23"}`)))
	require.False(t, bytes.Contains(body, []byte("walab_placement_trace_up")), "placement_trace is off by default")
	require.False(t, bytes.Contains(body, []byte("walab_io_size_trace_up")), "io_size is off by default")
	waFamilies, _ := waExpected(t, a)
	n := 0
	for _, s := range sampleSeries(body) {
		if strings.HasPrefix(s, "walab_") {
			n++
		}
	}
	t.Logf("walab_ series per host with the default collectors: %d (budget %d), %d in all; by group %v",
		n, seriesBudget, countSamples(body), groupCounts(sampleSeries(body), waFamilies))
	require.LessOrEqual(t, n, seriesBudget, "walab_ series per host with the default collectors")
}
