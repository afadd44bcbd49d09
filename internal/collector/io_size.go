package collector

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/blockdev"
	"github.com/walab/walab/internal/nvmetrace"
	"github.com/walab/walab/internal/promql"
)

func init() { Register("io_size", false, newIOSizeCollector) }

// ioSizeConfig is the `io_size:` section.
type ioSizeConfig struct {
	// Tracefs is where tracefs is mounted (default <sysfs>/kernel/tracing).
	Tracefs string `yaml:"tracefs"`
}

var (
	ioSizeDesc = prometheus.NewDesc(strings.TrimSuffix(promql.BlockdevIOSizeBucket, "_bucket"),
		"Sizes of the I/Os (bios) submitted to each block device, counted once where they were submitted by a BPF program on the block:block_bio_queue tracepoint since the exporter started, before the block layer merges or splits them: seed 001's I/O-size profile, per device (an md or dm array's own, its members' from the array). "+
			"Buckets by powers of two from 512 B to 1 MiB; op is read, write, discard or other (rwbs's letter). I/Os without data (flushes) are not counted.",
		[]string{"device", "op"}, nil)
	ioSizeUpDesc = prometheus.NewDesc(Namespace+"_io_size_trace_up",
		"1 if the I/O-size tracer runs, 0 if it cannot (walab_io_size_trace_error_info says why).", nil, nil)
	ioSizeErrDesc = prometheus.NewDesc(Namespace+"_io_size_trace_error_info",
		"Why the I/O-size tracer does not run: no_tracefs (not mounted at io_size.tracefs and nowhere to mount it), tracefs_permission (not mounted and mounting it refused: CAP_SYS_ADMIN needed; or mounted and root's: CAP_DAC_READ_SEARCH needed), no_tracepoint (block:block_bio_queue absent), permission (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN, needed), no_bpf, other.",
		[]string{"reason"}, nil)
	ioSizeKeysDesc = prometheus.NewDesc(Namespace+"_io_size_trace_keys",
		fmt.Sprintf("Device/operation/bucket combinations the I/O-size tracer counts; at %d new ones are not counted.", nvmetrace.IOSizeMaxKeys), nil, nil)
)

type ioSizeCollector struct {
	sys string

	mu     sync.Mutex
	tracer tracerSlot[*nvmetrace.IOSizeTracer, nvmetrace.IOSizeCount]
	names  map[uint32]string // dev_t -> device name, once resolved
}

func newIOSizeCollector(env Env) (Collector, error) {
	var cfg ioSizeConfig
	if err := env.Config.Decode("io_size", &cfg); err != nil {
		return nil, err
	}
	return &ioSizeCollector{sys: env.Paths.SysFS, names: map[uint32]string{},
		tracer: tracerSlot[*nvmetrace.IOSizeTracer, nvmetrace.IOSizeCount]{open: nvmetrace.OpenIOSize, up: ioSizeUpDesc, why: ioSizeErrDesc,
			attached: "I/O-size tracer attached to block:block_bio_queue", cannot: "I/O-size tracer cannot run: I/O sizes are not counted"}.on(env, cfg.Tracefs),
	}, nil
}

func (c *ioSizeCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	counts, ok, err := c.tracer.counts(ch)
	if ok {
		c.emit(ch, counts)
	}
	return err
}

// emit sends the running tracer's series for its counts.
func (c *ioSizeCollector) emit(ch chan<- prometheus.Metric, counts []nvmetrace.IOSizeCount) {
	ch <- prometheus.MustNewConstMetric(ioSizeUpDesc, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(ioSizeKeysDesc, prometheus.GaugeValue, float64(len(counts)))
	for _, h := range IOSizeHistograms(counts, c.deviceName) {
		ch <- prometheus.MustNewConstHistogram(ioSizeDesc, h.Count, h.Sum, h.Buckets, h.Device, h.Op)
	}
}

// deviceName names a block device by its kernel dev_t from sysfs
// (/sys/dev/block/MAJ:MIN links to its directory), or "MAJ:MIN" when sysfs
// has no such device (it went away): its counts are not dropped.
func (c *ioSizeCollector) deviceName(dev uint32) string {
	if n, ok := c.names[dev]; ok {
		return n
	}
	k := nvmetrace.IOSizeKey{Dev: dev}
	n, err := blockdev.DeviceOf(c.sys, k.Major(), k.Minor())
	if err != nil {
		return fmt.Sprintf("%d:%d", k.Major(), k.Minor())
	}
	c.names[dev] = n
	return n
}

// IOSizeHistogram is one device's and operation's I/O sizes as a
// Prometheus histogram: cumulative counts by upper bound, the bytes in all.
type IOSizeHistogram struct {
	Device, Op string
	Count      uint64
	Sum        float64
	Buckets    map[float64]uint64
}

// IOSizeHistograms folds the tracer's counts into one histogram per
// device (named by name) and operation, in the counts' order. I/Os of no
// device (dev_t 0) are left out.
func IOSizeHistograms(counts []nvmetrace.IOSizeCount, name func(dev uint32) string) []IOSizeHistogram {
	var out []IOSizeHistogram
	index := map[[2]string]int{}
	for _, n := range counts {
		if n.Dev == 0 {
			continue // no block device
		}
		k := [2]string{name(n.Dev), ioOp(n.Op)}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			b := make(map[float64]uint64, len(nvmetrace.IOSizeBounds))
			for _, ub := range nvmetrace.IOSizeBounds {
				b[float64(ub)] = 0
			}
			out = append(out, IOSizeHistogram{Device: k[0], Op: k[1], Buckets: b})
		}
		h := &out[i]
		h.Count += n.Bios
		h.Sum += float64(n.Bytes)
		for j, ub := range nvmetrace.IOSizeBounds {
			if int(n.Bucket) <= j {
				h.Buckets[float64(ub)] += n.Bios
			}
		}
	}
	return out
}

// ioOp names rwbs's operation letter.
func ioOp(c byte) string {
	switch c {
	case 'R':
		return "read"
	case 'W':
		return "write"
	case 'D':
		return "discard"
	}
	return "other"
}
