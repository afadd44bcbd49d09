package collector

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

var irqDeviceInterruptsDesc = prometheus.NewDesc(Namespace+"_irq_device_interrupts_total",
	"Interrupts taken on all the device's lines of interest, summed over its queues and CPUs. The per-line, per-CPU walab_irq_interrupts_total is exported only with irq.per_cpu: true.",
	[]string{"device"}, nil)

// deviceInterruptSamples is walab_irq_device_interrupts_total, one series a
// device, in device order: the fleet default, D series instead of up to
// lines x CPUs. A line that goes away (a hot-removed queue) takes its
// interrupts out of the sum, which rate() then sees as a counter reset.
func deviceInterruptSamples(out *samples, totals map[string]cpuTotals) []prometheus.Metric {
	devs := make([]string, 0, len(totals))
	for d := range totals {
		devs = append(devs, d)
	}
	slices.Sort(devs)
	batch := make([]prometheus.Metric, 0, len(devs))
	for _, d := range devs {
		var sum uint64
		for _, v := range totals[d].sums {
			sum += v
		}
		batch = append(batch, out.next(irqDeviceInterruptsDesc, prometheus.CounterValue, float64(sum), []*dto.LabelPair{labelPair("device", d)}))
	}
	return batch
}
