package device

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/simfs/fileclass"
)

// desc is one of the backend's metrics, labelled with the simulated drive
// and the namespace before labels.
func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, append([]string{"device", "namespace"}, labels...), nil)
}

var (
	descInfo    = desc(promql.SimFSDeviceInfo, "1 while the filesystem's device backend writes this namespace; policy is its placement policy (docs/placement-files.md).", "policy")
	descWritten = desc(promql.SimFSDeviceWrittenBytes, "Bytes the device backend wrote to the namespace, by file class and the placement handle the writes carried (what walab sent; the drive's own logs say what it received).", "class", "handle")
	descLabel   = desc(promql.Prefix+"_simfs_device_label_written_bytes_total", "Bytes of walab's label page the device backend wrote to a new namespace (once; 0 on a namespace it wrote before).")
	descDealloc = desc(promql.Prefix+"_simfs_device_deallocated_bytes_total", "Bytes the device backend deallocated (Dataset Management) for the extents files freed, and at start on a namespace it wrote before, everything after its label page.")
	descErrors  = desc(promql.Prefix+"_simfs_device_errors_total", "Commands the namespace or the kernel refused (the backing directory's copy of the data is unaffected).")
)

// Collector exports the backend's counters, labelled with the simulated
// drive's name.
func (d *Device) Collector(drive string) prometheus.Collector { return collector{d, drive} }

type collector struct {
	d     *Device
	drive string
}

func (c collector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.d.Stats()
	ns := c.d.path
	ch <- prometheus.MustNewConstMetric(descInfo, prometheus.GaugeValue, 1, c.drive, ns, c.d.pol.String())
	for k, b := range s.Written {
		ch <- prometheus.MustNewConstMetric(descWritten, prometheus.CounterValue, float64(b), c.drive, ns, fileclass.Names[k.Class], strconv.Itoa(int(k.Handle)))
	}
	ch <- prometheus.MustNewConstMetric(descLabel, prometheus.CounterValue, float64(s.LabelBytes), c.drive, ns)
	ch <- prometheus.MustNewConstMetric(descDealloc, prometheus.CounterValue, float64(s.Deallocated), c.drive, ns)
	ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(s.Errors), c.drive, ns)
}
