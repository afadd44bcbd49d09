// The irq collector's second job: where those interrupts land. Each
// line's affinity, whether it is delivered off its device's NUMA node,
// and the busiest CPU's share of a device's interrupts between scrapes.

package collector

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/irq"
)

// cpuTotals is one device's interrupts per CPU column of a scrape.
type cpuTotals struct {
	cpus []int // CPU id of each column
	sums []uint64
}

// emitDeviceNodes sends walab_device_numa_node for each device whose
// numa_node file exists and returns the nodes.
func emitDeviceNodes(ch chan<- prometheus.Metric, numaPaths map[string]string) (map[string]int, error) {
	devNode := map[string]int{}
	for name, path := range numaPaths {
		if path == "" {
			continue
		}
		n, ok, err := irq.ReadNUMANode(path)
		if err != nil {
			return nil, err
		}
		if ok {
			devNode[name] = n
			ch <- prometheus.MustNewConstMetric(deviceNodeDesc, prometheus.GaugeValue, float64(n), name)
		}
	}
	return devNode, nil
}

// affinitySeries reads each line's affinity and sends its CPU counts and
// whether it is delivered off its device's node. Lines are read in file
// order and their samples sent in label order (see interruptSamples); on an
// error the samples of the lines read before it are still sent.
func (c *irqCollector) affinitySeries(ctx context.Context, ch chan<- prometheus.Metric, out *samples, lines []lineOfInterest, order []int, devNode map[string]int, cpuNode map[int]int) error {
	slots := make([][3]prometheus.Metric, len(lines)) // configured, effective, off node
	defer func() {
		for _, i := range order {
			for _, m := range slots[i] {
				if m != nil {
					ch <- m
				}
			}
		}
	}()
	var r irq.AffinityReader
	defer r.Close()
	for i, li := range lines {
		if err := ctx.Err(); err != nil {
			return err
		}
		aff, ok, err := r.Read(c.paths.ProcFS, li.irq)
		if err != nil {
			return err
		}
		if !ok {
			continue // line freed since /proc/interrupts was read
		}
		ls := li.series
		slots[i][0] = out.next(irqAffinityDesc, prometheus.GaugeValue, float64(len(aff.Configured)), ls.configured)
		delivered := aff.Configured
		if aff.HasEffective {
			slots[i][1] = out.next(irqAffinityDesc, prometheus.GaugeValue, float64(len(aff.Effective)), ls.effective)
			delivered = aff.Effective
		}
		if off, known := offNode(delivered, devNode, ls.device, cpuNode); known {
			slots[i][2] = out.next(irqOffNodeDesc, prometheus.GaugeValue, hostBoolFloat(off), ls.offNode)
		}
	}
	return nil
}

// numaKind says where a device's numa_node file is.
type numaKind int

func (c *irqCollector) numaPath(k numaKind, dev string) string {
	switch k {
	case numaNVMe:
		return filepath.Join(c.paths.SysFS, "class/nvme", dev, "device/numa_node")
	case numaNet:
		return c.netNUMAPath(dev)
	}
	return ""
}

func (c *irqCollector) netNUMAPath(iface string) string {
	return filepath.Join(c.paths.SysFS, "class/net", iface, "device/numa_node")
}

// offNode reports whether any delivery CPU is on another node than the
// device; known is false when the device's or a CPU's node is unknown.
func offNode(cpus []int, devNode map[string]int, dev string, cpuNode map[int]int) (off, known bool) {
	dn, ok := devNode[dev]
	if !ok || dn < 0 || len(cpus) == 0 {
		return false, false
	}
	for _, cpu := range cpus {
		n, ok := cpuNode[cpu]
		if !ok {
			return false, false
		}
		if n != dn {
			off = true
		}
	}
	return off, true
}

// busiestShares turns this scrape's per-device per-CPU totals into the
// busiest CPU's share of the interval's interrupts, and keeps only these
// totals for next time. A device needs two scrapes and at least one
// interrupt in between; a counter that went backwards (CPU hot-unplug,
// driver reload) skips one interval rather than report nonsense.
func (c *irqCollector) busiestShares(totals map[string]cpuTotals) map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]float64{}
	for dev, cur := range totals {
		prev, ok := c.prev[dev]
		if !ok {
			continue
		}
		if share, ok := busiestShare(prev, cur); ok {
			out[dev] = share
		}
	}
	c.prev = totals // devices that vanished are forgotten: no unbounded history
	return out
}

// busiestShare is the largest CPU's part of the interrupts between prev and
// cur; ok is false when there were none or a count went backwards.
func busiestShare(prev, cur cpuTotals) (share float64, ok bool) {
	before := func(col int) uint64 { return prev.sums[col] }
	if !slices.Equal(prev.cpus, cur.cpus) {
		byCPU := make(map[int]uint64, len(prev.cpus))
		for i, cpu := range prev.cpus {
			byCPU[cpu] = prev.sums[i]
		}
		before = func(col int) uint64 { return byCPU[cur.cpus[col]] } // a CPU that came online counts from 0
	}
	var sum, max uint64
	for col, v := range cur.sums {
		p := before(col)
		if v < p {
			return 0, false
		}
		d := v - p
		sum += d
		if d > max {
			max = d
		}
	}
	if sum == 0 {
		return 0, false
	}
	return float64(max) / float64(sum), true
}
