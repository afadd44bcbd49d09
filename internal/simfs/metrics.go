package simfs

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/simfs/fileclass"
)

var (
	descServing = prometheus.NewDesc(promql.SimFSServing,
		"1 while the simulated drive's filesystem serves its mountpoint; 0 once it stopped (its counters are then absent: the drive no longer sees the database's writes).",
		[]string{"device", "mountpoint"}, nil)
	descWritten = prometheus.NewDesc(promql.SimFSWrittenBytes,
		"Bytes of the write calls the simulated drive's filesystem served, by file class (docs/sim.md): what the database wrote, exactly.",
		[]string{"device", "class"}, nil)
	descHost = prometheus.NewDesc(promql.SimFSHostWrittenBytes,
		"Host bytes the simulated drive was sent for those writes, by file class: whole pages (LBAs) the writes touched, plus the files found in the backing directory at mount.",
		[]string{"device", "class"}, nil)
	descWrites = prometheus.NewDesc(promql.SimFSWrites,
		"Write calls the simulated drive's filesystem served, by file class.", []string{"device", "class"}, nil)
	descFsyncs = prometheus.NewDesc(promql.SimFSFsyncs,
		"fsync and fdatasync calls the simulated drive's filesystem served, by file class.", []string{"device", "class"}, nil)
	descTrimmed = prometheus.NewDesc(promql.SimFSTrimmedBytes,
		"Bytes freed on the simulated drive (TRIM) by unlink, truncate, punch-hole and rename-over, by file class: written pages only (a page fallocate reserved and nothing wrote was never on the drive); none with sim.fs.discard false (the pages stay valid on the drive).",
		[]string{"device", "class"}, nil)
)

// Collector exports the filesystem's counters labelled with the drive's
// name. While the filesystem does not serve, only walab_simfs_serving 0.
func (f *FS) Collector(device string) prometheus.Collector { return collector{f, device} }

type collector struct {
	f      *FS
	device string
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descServing, descWritten, descHost, descWrites, descFsyncs, descTrimmed} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.f.Stats()
	up := 0.0
	if s.Serving {
		up = 1
	}
	ch <- prometheus.MustNewConstMetric(descServing, prometheus.GaugeValue, up, c.device, c.f.Mountpoint())
	if !s.Serving {
		return
	}
	for i, st := range s.Classes {
		cl := fileclass.Names[i]
		ch <- prometheus.MustNewConstMetric(descWritten, prometheus.CounterValue, float64(st.WrittenBytes), c.device, cl)
		ch <- prometheus.MustNewConstMetric(descHost, prometheus.CounterValue, float64(st.HostBytes), c.device, cl)
		ch <- prometheus.MustNewConstMetric(descWrites, prometheus.CounterValue, float64(st.Writes), c.device, cl)
		ch <- prometheus.MustNewConstMetric(descFsyncs, prometheus.CounterValue, float64(st.Fsyncs), c.device, cl)
		ch <- prometheus.MustNewConstMetric(descTrimmed, prometheus.CounterValue, float64(st.TrimmedBytes), c.device, cl)
	}
}
