package check

import (
	"fmt"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// irqAffinity: every interrupt line of the device (nvme0's queues, a
// NIC's vectors, as the database host's exporter watches them) may run
// only on the planned CPUs (seed 000 §4.3 pins them).
func irqAffinity(f *hostapi.Facts, c plan.Check) (string, error) {
	n := 0
	for _, l := range f.IRQs {
		if l.Device != c.Device {
			continue
		}
		n++
		ok, err := sameCPUs(l.CPUs, c.CPUs, true)
		if err != nil {
			return "", fmt.Errorf("irq %d (%s) on %s: %w", l.IRQ, l.Action, f.Hostname, err)
		}
		if !ok {
			return "", fmt.Errorf("irq %d (%s) on %s may run on CPUs %s, outside the planned %s", l.IRQ, l.Action, f.Hostname, l.CPUs, c.CPUs)
		}
	}
	if n == 0 {
		return "", fmt.Errorf("the exporter on %s watches no interrupt line of %s (NVMe queues always; a NIC when its irq: interfaces name it)", f.Hostname, c.Device)
	}
	return fmt.Sprintf("%d interrupt lines of %s on %s, all within CPUs %s", n, c.Device, f.Hostname, c.CPUs), nil
}

var irqAffinityCheck = hostKind("device, cpus",
	func(_ *plan.Plan, c plan.Check) []string {
		out := validCPUs(c)
		if c.Device == "" {
			out = append(out, "device missing (nvme0, or a NIC such as eth0)")
		}
		return out
	},
	irqAffinity)

func init() { register("irq_affinity", irqAffinityCheck) }
