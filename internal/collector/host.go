package collector

import (
	"context"

	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/hostfacts"
)

// hostSection is the `host:` section: the data directories whose
// filesystems and drives the host facts describe (default: the filesystem
// collector's paths). The watched NICs are the irq: section's interfaces,
// the watched processes the process: section's names.
type hostSection struct {
	DataDirs []string `yaml:"data_dirs"`
}

var (
	hostInfoDesc = prometheus.NewDesc(Namespace+"_host_info",
		"Always 1: the exporter's host (hostname, kernel release, os-release PRETTY_NAME, CPU model, cpufreq governor or empty); the full facts are GET "+hostapi.Path+".",
		[]string{"hostname", "kernel", "os", "cpu_model", "governor"}, nil)
	hostMountInfoDesc = prometheus.NewDesc(Namespace+"_host_mount_info",
		"Always 1: a filesystem at or under a configured data directory, its source, type and the whole disks under it through partitions, dm and md.",
		[]string{"data_dir", "mount_point", "source", "fstype", "disks"}, nil)
	hostMountFillDesc = prometheus.NewDesc(Namespace+"_host_mount_fill_ratio",
		"Fill of the filesystem as df computes it: used / (used + available); root-reserved blocks count as neither.",
		[]string{"data_dir", "mount_point"}, nil)
	hostMountAvailDesc = prometheus.NewDesc(Namespace+"_host_mount_avail_bytes",
		"Bytes an unprivileged user may still write on the filesystem (statfs bavail x fragment size).",
		[]string{"data_dir", "mount_point"}, nil)
	hostMountAlignedDesc = prometheus.NewDesc(Namespace+"_host_mount_aligned_4k",
		"1 if every partition under the filesystem starts on a 4 KiB boundary, 0 if one does not; absent without partitions.",
		[]string{"data_dir", "mount_point"}, nil)
)

// hostNumbers are the host's three numbers, each absent when the facts
// do not know it (0).
var hostNumbers = []struct {
	desc *prometheus.Desc
	of   func(hostapi.Facts) float64
}{
	{prometheus.NewDesc(Namespace+"_host_cpus", "Online logical CPUs of the exporter's host.", nil, nil),
		func(f hostapi.Facts) float64 { return float64(f.CPUs) }},
	{prometheus.NewDesc(Namespace+"_host_memory_bytes", "MemTotal of the exporter's host.", nil, nil),
		func(f hostapi.Facts) float64 { return float64(f.MemoryBytes) }},
	{prometheus.NewDesc(Namespace+"_host_numa_nodes", "NUMA nodes sysfs shows on the exporter's host (absent when it shows none).", nil, nil),
		func(f hostapi.Facts) float64 { return float64(f.NUMANodes) }},
}

func init() { Register("host", true, newHostCollector) }

type hostCollector struct{ opts hostfacts.Options }

// HostFactsOptions is what the host facts watch, from the configuration:
// the one place the host collector and GET /api/v1/host take it from.
func HostFactsOptions(cfg *config.File, paths Paths) (hostfacts.Options, error) {
	var hc hostSection
	if err := cfg.Decode("host", &hc); err != nil {
		return hostfacts.Options{}, err
	}
	if hc.DataDirs == nil {
		var fc filesystemConfig
		if err := cfg.Decode("filesystem", &fc); err != nil {
			return hostfacts.Options{}, err
		}
		hc.DataDirs = fc.Paths
	}
	var ic irqConfig
	if err := cfg.Decode("irq", &ic); err != nil {
		return hostfacts.Options{}, err
	}
	var pc processConfig
	if err := cfg.Decode("process", &pc); err != nil {
		return hostfacts.Options{}, err
	}
	if pc.Names == nil {
		pc.Names = defaultProcessNames
	}
	p := paths.withDefaults()
	o := hostfacts.Options{ProcFS: p.ProcFS, SysFS: p.SysFS, DataDirs: hc.DataDirs, Interfaces: ic.Interfaces, Processes: pc.Names}
	if err := o.Check(); err != nil {
		return o, err
	}
	return o, nil
}

func newHostCollector(env Env) (Collector, error) {
	o, err := HostFactsOptions(env.Config, env.Paths)
	if err != nil {
		return nil, err
	}
	// The metrics carry no process or IRQ facts: no /proc walk per scrape.
	o.Processes, o.SkipIRQs = nil, true
	return &hostCollector{opts: o}, nil
}

// Update reads the facts within the scrape's deadline: a data directory on
// a hung mount loses its series this scrape (absent, not 0).
func (c *hostCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	hostMetrics(hostfacts.Read(ctx, c.opts), ch)
	return nil
}

// hostMetrics turns facts into series: one host_info and three host
// numbers, and four series per mount (at most hostfacts.MaxMounts).
func hostMetrics(f hostapi.Facts, ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(hostInfoDesc, 1, f.Hostname, f.Kernel, f.OS, f.CPUModel, f.Governor)
	for _, n := range hostNumbers {
		if v := n.of(f); v > 0 {
			gauge(n.desc, v)
		}
	}
	seen := map[[2]string]bool{}
	for _, m := range f.Mounts {
		key := [2]string{m.DataDir, m.MountPoint}
		if seen[key] {
			continue // the same mount reached twice under one directory
		}
		seen[key] = true
		gauge(hostMountInfoDesc, 1, m.DataDir, m.MountPoint, m.Source, m.FSType, strings.Join(m.Disks, ","))
		if m.Fill != nil {
			gauge(hostMountFillDesc, *m.Fill, key[:]...)
		}
		if m.AvailBytes != nil {
			gauge(hostMountAvailDesc, float64(*m.AvailBytes), key[:]...)
		}
		if m.Aligned4K != nil {
			gauge(hostMountAlignedDesc, map[bool]float64{false: 0, true: 1}[*m.Aligned4K], key[:]...)
		}
	}
}

// hostSeriesBound is the most series one scrape of the host collector
// makes: four host series and four per mount.
const hostSeriesBound = 4 + 4*hostfacts.MaxMounts
