package collector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/blockdev"
	"github.com/walab/walab/internal/promql"
)

func init() { Register("blockdev", true, newBlockdevCollector) }

// blockdevConfig is the `blockdev:` section. The namespaces of the measured
// NVMe controllers and every device built on them (partitions that hold
// something, md, dm) are always read; Devices adds others, such as the disk
// of a lab without NVMe.
type blockdevConfig struct {
	Devices []string `yaml:"devices"`
	// Paths name devices by a file on them (a MySQL data directory): the
	// device holding its filesystem and every device below it, down to the
	// disks, with what is built on those.
	Paths      []string `yaml:"paths"`
	MaxDevices int      `yaml:"max_devices"`
}

// defaultMaxBlockDevices bounds the series: 64 devices x blockdevSeriesPerDevice.
const defaultMaxBlockDevices = 64

const msPerSecond = 1000.0

// blockdevCounters are the diskstats columns exported, in the order of
// Documentation/admin-guide/iostats.rst. Each maps to the sysstat iostat -x
// field its rule computes (alerts.IostatFields). Discard and flush columns
// are absent on kernels that do not print them.
var blockdevCounters = []struct {
	name, help string // the metric's name, help
	value      func(*blockdev.Stat) (float64, bool)
}{
	{promql.BlockdevReadsCompleted, "Reads completed (iostat r/s is its rate).", func(s *blockdev.Stat) (float64, bool) { return float64(s.ReadIOs), true }},
	{promql.BlockdevReadsMerged, "Adjacent reads merged before they reached the device (iostat rrqm/s).", func(s *blockdev.Stat) (float64, bool) { return float64(s.ReadMerges), true }},
	{promql.BlockdevReadBytes, "Bytes read (sectors x 512; iostat rkB/s).", func(s *blockdev.Stat) (float64, bool) { return float64(s.ReadSectors * blockdev.SectorSize), true }},
	{promql.BlockdevReadTime, "Time reads spent from issue to completion, summed over reads (iostat r_await is its rate over the rate of reads).", func(s *blockdev.Stat) (float64, bool) { return float64(s.ReadTicks) / msPerSecond, true }},
	{promql.BlockdevWritesCompleted, "Writes completed (iostat w/s).", func(s *blockdev.Stat) (float64, bool) { return float64(s.WriteIOs), true }},
	{promql.BlockdevWritesMerged, "Adjacent writes merged (iostat wrqm/s).", func(s *blockdev.Stat) (float64, bool) { return float64(s.WriteMerges), true }},
	{promql.BlockdevWrittenBytes, "Bytes written (sectors x 512; iostat wkB/s): the block layer's side of the write chain, between the filesystem and the drive's host writes.", func(s *blockdev.Stat) (float64, bool) { return float64(s.WriteSectors * blockdev.SectorSize), true }},
	{promql.BlockdevWriteTime, "Time writes spent from issue to completion, summed over writes (iostat w_await).", func(s *blockdev.Stat) (float64, bool) { return float64(s.WriteTicks) / msPerSecond, true }},
	{promql.BlockdevIOTime, "Time the device had at least one request in flight (iostat %util is its rate).", func(s *blockdev.Stat) (float64, bool) { return float64(s.IOTicks) / msPerSecond, true }},
	{promql.BlockdevIOTimeWeighted, "Request time summed over all requests in flight (iostat aqu-sz is its rate).", func(s *blockdev.Stat) (float64, bool) { return float64(s.TimeInQueue) / msPerSecond, true }},
	{promql.BlockdevDiscardsCompleted, "Discards completed (iostat d/s; kernel 4.18 and later).", func(s *blockdev.Stat) (float64, bool) { return float64(s.DiscardIOs), s.HasDiscard }},
	{promql.BlockdevDiscardsMerged, "Discards merged (iostat drqm/s).", func(s *blockdev.Stat) (float64, bool) { return float64(s.DiscardMerges), s.HasDiscard }},
	{promql.BlockdevDiscardedBytes, "Bytes discarded (iostat dkB/s).", func(s *blockdev.Stat) (float64, bool) {
		return float64(s.DiscardSectors * blockdev.SectorSize), s.HasDiscard
	}},
	{promql.BlockdevDiscardTime, "Time discards spent (iostat d_await).", func(s *blockdev.Stat) (float64, bool) { return float64(s.DiscardTicks) / msPerSecond, s.HasDiscard }},
	{promql.BlockdevFlushesCompleted, "Flush requests completed (iostat f/s; kernel 5.5 and later).", func(s *blockdev.Stat) (float64, bool) { return float64(s.FlushIOs), s.HasFlush }},
	{promql.BlockdevFlushTime, "Time flush requests spent (iostat f_await).", func(s *blockdev.Stat) (float64, bool) { return float64(s.FlushTicks) / msPerSecond, s.HasFlush }},
}

var (
	blockdevCounterDescs = func() []*prometheus.Desc {
		out := make([]*prometheus.Desc, len(blockdevCounters))
		for i, c := range blockdevCounters {
			help := c.help + " From /proc/diskstats."
			if strings.Contains(c.name, "time_seconds") {
				help += " The kernel's 32-bit millisecond column is widened across its wrap."
			}
			out[i] = prometheus.NewDesc(c.name, help, []string{"device"}, nil)
		}
		return out
	}()
	blockdevInFlightDesc = prometheus.NewDesc(Namespace+"_blockdev_io_now",
		"Requests in flight on the device now.", []string{"device"}, nil)
	blockdevInfoDesc = prometheus.NewDesc(promql.BlockdevInfo,
		"A block device walab reads, and its place in the stack: kind (nvme, partition, md, dm, other), the NVMe controller of a namespace (the `device` label of walab_nvme_* series) and the disk of a partition.",
		[]string{"device", "kind", "controller", "parent", "dm_name"}, nil)
	blockdevOmittedDesc = prometheus.NewDesc(Namespace+"_blockdev_devices_omitted",
		"Devices of the stack left out because blockdev: max_devices was reached.", nil, nil)
	blockdevMemberDesc = prometheus.NewDesc(promql.BlockdevMemberInfo,
		"A device an md array or dm device is built on directly (its slaves/): the array's member writes are the sum over these.",
		[]string{"array", "device"}, nil)
	blockdevLeafDesc = prometheus.NewDesc(promql.BlockdevLeafInfo,
		"A device at the bottom of an array's stack (dm over md over NVMe: the namespaces) and its NVMe controller (\"\" when it is no NVMe namespace): the array's NAND bytes are its leaves' controllers'.",
		[]string{"array", "device", "controller"}, nil)

	mdInfoDesc  = prometheus.NewDesc(Namespace+"_md_info", "An md array and its RAID level.", []string{"device", "level"}, nil)
	mdDisksDesc = prometheus.NewDesc(Namespace+"_md_disks",
		"Members of the complete array (md/raid_disks).", []string{"device"}, nil)
	mdDataDisksDesc = prometheus.NewDesc(Namespace+"_md_data_disks",
		"Members' worth of user data in one full stripe (RAID 5 of 3: 2).", []string{"device"}, nil)
	mdChunkDesc = prometheus.NewDesc(Namespace+"_md_chunk_bytes",
		"Chunk size of a striped level.", []string{"device"}, nil)
	mdDegradedDesc = prometheus.NewDesc(promql.MDDegradedDisks,
		"Members missing from an array with redundancy.", []string{"device"}, nil)
	mdSyncDesc = prometheus.NewDesc(promql.MDSyncActive,
		"1 while a resync, recovery, check, repair or reshape runs (action names it; 0 with action=\"idle\" otherwise): it writes the members by itself, so a WA window it overlaps is not valid.",
		[]string{"device", "action"}, nil)
	mdSyncDoneDesc = prometheus.NewDesc(Namespace+"_md_sync_completed_ratio",
		"Share of the running sync done (md/sync_completed).", []string{"device"}, nil)
	mdTheoryDesc = prometheus.NewDesc(promql.MDTheoreticalWA,
		"Member bytes written per array byte for full-stripe writes: RAID 0 1, RAID 1 n, RAID 10 its copies, RAID 5 (k+1)/k, RAID 6 (k+2)/k. Smaller writes on parity levels cost more (read-modify-write).",
		[]string{"device"}, nil)
)

// blockdevSeriesPerDevice is the most series one device can have.
var blockdevSeriesPerDevice = len(blockdevCounters) + 2

type blockdevCollector struct {
	sys, diskstats string
	roots          []blockdev.Root
	required       map[string]bool // configured devices: their absence is an error
	max            int
	logger         *slog.Logger

	mu       sync.Mutex
	widener  blockdev.Widener
	paths    []string
	resolved map[string]string // path -> block device holding it
}

// blockDeviceName refuses what is no kernel block device name.
func blockDeviceName(d string) error {
	if d == "" || filepath.Base(d) != d || d == "." || d == ".." {
		return errors.New("not a kernel block device name (vda, nvme0n1, md0)")
	}
	return nil
}

func (c *blockdevConfig) complete() error {
	for _, p := range c.Paths {
		if err := cleanAbsolute(p); err != nil {
			return fmt.Errorf("blockdev: path %q: %w", p, err)
		}
	}
	return cmp.Or(orDefault(&c.MaxDevices, defaultMaxBlockDevices, "blockdev", "max_devices"),
		checkList("blockdev", "device", c.Devices, blockDeviceName))
}

func newBlockdevCollector(env Env) (Collector, error) {
	var cfg blockdevConfig
	if err := decodeSection(env.Config, "blockdev", &cfg); err != nil {
		return nil, err
	}
	paths := env.Paths
	c := &blockdevCollector{
		sys:       paths.SysFS,
		diskstats: filepath.Join(paths.ProcFS, "diskstats"),
		required:  map[string]bool{},
		max:       cfg.MaxDevices,
		logger:    env.log(),
	}
	if env.Fleet != nil {
		for _, ctrl := range env.Fleet.Controllers {
			for _, ns := range ctrl.Namespaces {
				if ns.Block != "" {
					c.roots = append(c.roots, blockdev.Root{Name: ns.Block, Controller: ctrl.Name})
				}
			}
		}
	}
	for _, d := range cfg.Devices {
		c.required[d] = true
		c.roots = append(c.roots, blockdev.Root{Name: d})
	}
	c.paths, c.resolved = cfg.Paths, map[string]string{}
	return c, nil
}

// pathRoots resolves each configured path to its device once; a path that
// does not resolve yet (its directory is created later) is retried at the
// next scrape and reported as an error until then.
func (c *blockdevCollector) pathRoots() ([]blockdev.Root, []error) {
	var roots []blockdev.Root
	var errs []error
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.paths {
		name, ok := c.resolved[p]
		if !ok {
			var st unix.Stat_t
			if err := unix.Stat(p, &st); err != nil {
				errs = append(errs, fmt.Errorf("blockdev: paths: %s: %w", p, err))
				continue
			}
			var err error
			if name, err = blockdev.DeviceOf(c.sys, unix.Major(st.Dev), unix.Minor(st.Dev)); err != nil {
				errs = append(errs, fmt.Errorf("blockdev: paths: %s: %w", p, err))
				continue
			}
			c.resolved[p] = name
			c.required[name] = true
		}
		roots = append(roots, blockdev.Root{Name: name, Down: true})
	}
	return roots, errs
}

func (c *blockdevCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	if len(c.roots) == 0 && len(c.paths) == 0 {
		return ErrNoData
	}
	proots, errs := c.pathRoots()
	devs, omitted, derr := blockdev.Discover(c.sys, append(append([]blockdev.Root(nil), c.roots...), proots...), c.max)
	if derr != nil {
		// A namespace of a simulated or replayed controller has no sysfs
		// entry; only a configured device that is missing is an error.
		for _, e := range unwrapJoined(derr) {
			var missing *blockdev.MissingRootError
			if errors.As(e, &missing) && !c.isRequired(missing.Name) {
				continue
			}
			errs = append(errs, fmt.Errorf("blockdev: %w", e))
		}
	}
	if len(devs) == 0 {
		return errors.Join(append(errs, ErrNoData)...)
	}
	data, err := os.ReadFile(c.diskstats)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("blockdev: %w", err))...)
	}
	stats, lineErrs := blockdev.ParseDiskstats(data)
	for _, e := range lineErrs {
		errs = append(errs, fmt.Errorf("blockdev: %w", e))
	}
	c.mu.Lock()
	stats = c.widener.Widen(stats)
	c.mu.Unlock()
	byName := make(map[string]*blockdev.Stat, len(stats))
	for i := range stats {
		byName[stats[i].Name] = &stats[i]
	}
	ch <- prometheus.MustNewConstMetric(blockdevOmittedDesc, prometheus.GaugeValue, float64(omitted))
	for _, d := range devs {
		s, ok := byName[d.Name]
		if !ok {
			errs = append(errs, fmt.Errorf("blockdev: %s is in sysfs but not in %s", d.Name, c.diskstats))
			continue
		}
		ch <- prometheus.MustNewConstMetric(blockdevInfoDesc, prometheus.GaugeValue, 1, d.Name, d.Kind, d.Controller, d.Parent, d.DMName)
		for i, k := range blockdevCounters {
			if v, ok := k.value(s); ok {
				ch <- prometheus.MustNewConstMetric(blockdevCounterDescs[i], prometheus.CounterValue, v, d.Name)
			}
		}
		ch <- prometheus.MustNewConstMetric(blockdevInFlightDesc, prometheus.GaugeValue, float64(s.InFlight), d.Name)
	}
	for _, d := range devs {
		if len(d.Slaves) == 0 {
			continue
		}
		for _, m := range d.Slaves {
			ch <- prometheus.MustNewConstMetric(blockdevMemberDesc, prometheus.GaugeValue, 1, d.Name, m)
		}
		for _, l := range blockdev.Leaves(devs, d.Name) {
			ch <- prometheus.MustNewConstMetric(blockdevLeafDesc, prometheus.GaugeValue, 1, d.Name, l.Name, l.Controller)
		}
		if d.Kind == blockdev.KindMD {
			if err := c.collectMD(d.Name, ch); err != nil {
				errs = append(errs, fmt.Errorf("blockdev: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

func (c *blockdevCollector) collectMD(name string, ch chan<- prometheus.Metric) error {
	m, err := blockdev.ReadMD(c.sys, name)
	if err != nil {
		return err
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{name}, labels...)...)
	}
	gauge(mdInfoDesc, 1, m.Level)
	if m.Level == "" {
		return nil
	}
	gauge(mdDisksDesc, float64(m.Disks))
	if k, ok := m.DataDisks(); ok {
		gauge(mdDataDisksDesc, k)
	}
	if wa, ok := m.TheoreticalWA(); ok {
		gauge(mdTheoryDesc, wa)
	}
	if m.ChunkBytes > 0 {
		gauge(mdChunkDesc, float64(m.ChunkBytes))
	}
	if m.SyncAction == "" {
		return nil // no redundancy: no degraded members, no sync
	}
	gauge(mdDegradedDesc, float64(m.Degraded))
	if m.Syncing() {
		gauge(mdSyncDesc, 1, m.SyncAction)
		if m.SyncTotal > 0 {
			gauge(mdSyncDoneDesc, float64(m.SyncDone)/float64(m.SyncTotal))
		}
	} else {
		gauge(mdSyncDesc, 0, "idle")
	}
	return nil
}

func (c *blockdevCollector) isRequired(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.required[name]
}

func unwrapJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
