package collector

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/nvmetrace"
	"github.com/walab/walab/internal/promql"
)

func init() { Register("placement_trace", false, newPlacementTraceCollector) }

// placementTraceConfig is the `placement_trace:` section.
type placementTraceConfig struct {
	// Tracefs is where tracefs is mounted (default <sysfs>/kernel/tracing).
	Tracefs string `yaml:"tracefs"`
	// MaxPlacementIDs bounds the placement_id values of one device and
	// directive; ids seen after that many fold into placement_id="other".
	MaxPlacementIDs int `yaml:"max_placement_ids"`
}

const (
	defaultMaxPlacementIDs = 16
	// traceRetry is how often a tracer that could not start is tried again
	// (the nvme driver may load later).
	traceRetry = time.Minute
)

// traceSource says who counted the write commands: the kernel's, traced;
// or the simulated drive's, its own count.
const traceSource = "On a real drive, counted per command by a BPF program on the nvme:nvme_setup_cmd tracepoint since the exporter started: proof, not inference, that placement reached the drive. " +
	"On a simulated drive (walab_nvme_info simulated=\"true\"), the simulator's own count of the writes it was given: nothing is traced."

var (
	traceCmdsDesc = prometheus.NewDesc(Namespace+"_nvme_write_commands_total",
		"NVMe Write commands sent to the drive, by the placement they asked for: directive none, streams or data_placement (CDW12 bits 23:20) and placement_id, the stream id or placement handle (CDW13 bits 31:16; \"other\" past placement_trace: max_placement_ids). "+traceSource,
		[]string{"device", "directive", "placement_id"}, nil)
	traceBytesDesc = prometheus.NewDesc(promql.NVMeWriteBytes,
		"Bytes of the NVMe Write commands of walab_nvme_write_commands_total: (NLB + 1) x the namespace's logical block size. Absent for a namespace whose block size sysfs does not give. "+traceSource,
		[]string{"device", "directive", "placement_id"}, nil)
	traceUpDesc = prometheus.NewDesc(Namespace+"_placement_trace_up",
		"1 if the per-command placement tracer runs, 0 if it cannot (walab_placement_trace_error_info says why).", nil, nil)
	traceErrDesc = prometheus.NewDesc(Namespace+"_placement_trace_error_info",
		"Why the placement tracer does not run: no_tracefs (not mounted at placement_trace.tracefs and nowhere to mount it), tracefs_permission (not mounted and mounting it refused: CAP_SYS_ADMIN needed; or mounted and root's: CAP_DAC_READ_SEARCH needed), no_tracepoint (nvme driver not loaded), permission (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN, needed), no_bpf, other.",
		[]string{"reason"}, nil)
	traceKeysDesc = prometheus.NewDesc(Namespace+"_placement_trace_keys",
		fmt.Sprintf("Controller/namespace/directive/id combinations the tracer counts; at %d new ones are not counted.", nvmetrace.MaxKeys), nil, nil)
)

// directiveLabel names a directive type.
func directiveLabel(t uint8) string {
	switch t {
	case 0:
		return "none"
	case 1:
		return "streams"
	case 2:
		return "data_placement"
	}
	return "type_" + strconv.Itoa(int(t))
}

type placementTraceCollector struct {
	sys    string
	maxIDs int
	logger *slog.Logger
	sims   map[string]PlacedWriter

	mu        sync.Mutex
	tracer    tracerSlot[*nvmetrace.Tracer, nvmetrace.Count]
	shown     map[string]map[uint16]bool // device/directive -> ids with their own series
	blockSize map[string]int64           // "ctrl/nsid" -> logical block size
}

func (c *placementTraceConfig) complete() error {
	return orDefault(&c.MaxPlacementIDs, defaultMaxPlacementIDs, "placement_trace", "max_placement_ids")
}

func newPlacementTraceCollector(env Env) (Collector, error) {
	var cfg placementTraceConfig
	if err := decodeSection(env.Config, "placement_trace", &cfg); err != nil {
		return nil, err
	}
	return &placementTraceCollector{sys: env.Paths.SysFS, maxIDs: cfg.MaxPlacementIDs, logger: env.log(), sims: env.PlacedWriters,
		shown: map[string]map[uint16]bool{}, blockSize: map[string]int64{},
		tracer: tracerSlot[*nvmetrace.Tracer, nvmetrace.Count]{open: nvmetrace.Open, up: traceUpDesc, why: traceErrDesc,
			attached: "placement tracer attached to nvme:nvme_setup_cmd", cannot: "placement tracer cannot run: the kernel's NVMe write commands are not counted"}.on(env, cfg.Tracefs),
	}, nil
}

func (c *placementTraceCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.collectSims(ch)
	counts, ok, err := c.tracer.counts(ch)
	if !ok {
		return err
	}
	ch <- prometheus.MustNewConstMetric(traceUpDesc, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(traceKeysDesc, prometheus.GaugeValue, float64(len(counts)))
	type agg struct {
		cmds, bytes float64
		bytesKnown  bool
	}
	sums := map[[3]string]*agg{}
	var order [][3]string
	for _, n := range counts {
		dev, dir := "nvme"+strconv.FormatUint(uint64(n.Ctrl), 10), directiveLabel(n.DType)
		id := "none"
		if n.DType != 0 {
			id = c.idLabel(dev+"/"+dir, n.DSpec)
		}
		k := [3]string{dev, dir, id}
		a, ok := sums[k]
		if !ok {
			a = &agg{bytesKnown: true}
			sums[k] = a
			order = append(order, k)
		}
		a.cmds += float64(n.Commands)
		if bs := c.lbaSize(n.Ctrl, n.NSID); bs > 0 {
			a.bytes += float64(n.Blocks) * float64(bs)
		} else {
			a.bytesKnown = false
		}
	}
	for _, k := range order {
		a := sums[k]
		ch <- prometheus.MustNewConstMetric(traceCmdsDesc, prometheus.CounterValue, a.cmds, k[:]...)
		if a.bytesKnown {
			ch <- prometheus.MustNewConstMetric(traceBytesDesc, prometheus.CounterValue, a.bytes, k[:]...)
		}
	}
	return nil
}

// collectSims reports the simulated drives' own counts of their write
// commands by stream (their device is labelled simulated="true" in
// walab_nvme_info): the same series as the tracer's, without BPF.
func (c *placementTraceCollector) collectSims(ch chan<- prometheus.Metric) {
	names := make([]string, 0, len(c.sims))
	for n := range c.sims {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, dev := range names {
		sums := map[string][2]float64{}
		var ids []string
		for _, p := range c.sims[dev].PlacedWrites() {
			dir, id := "none", "none"
			if p.Stream != 0 {
				dir, id = "streams", c.idLabel(dev+"/streams", p.Stream)
			}
			k := dir + "\x00" + id
			if _, ok := sums[k]; !ok {
				ids = append(ids, k)
			}
			s := sums[k]
			sums[k] = [2]float64{s[0] + float64(p.Commands), s[1] + float64(p.Bytes)}
		}
		for _, k := range ids {
			dir, id, _ := strings.Cut(k, "\x00")
			ch <- prometheus.MustNewConstMetric(traceCmdsDesc, prometheus.CounterValue, sums[k][0], dev, dir, id)
			ch <- prometheus.MustNewConstMetric(traceBytesDesc, prometheus.CounterValue, sums[k][1], dev, dir, id)
		}
	}
}

// idLabel gives an id its own series if it is among the first maxIDs seen
// for the device and directive (so a series never moves to "other" later).
func (c *placementTraceCollector) idLabel(key string, id uint16) string {
	s := c.shown[key]
	if s == nil {
		s = map[uint16]bool{}
		c.shown[key] = s
	}
	if !s[id] {
		if len(s) >= c.maxIDs {
			return "other"
		}
		s[id] = true
	}
	return strconv.Itoa(int(id))
}

// lbaSize is the namespace's logical block size from sysfs (0: unknown),
// read once per namespace.
func (c *placementTraceCollector) lbaSize(ctrl, nsid uint32) int64 {
	key := fmt.Sprintf("%d/%d", ctrl, nsid)
	if v, ok := c.blockSize[key]; ok {
		return v
	}
	name := fmt.Sprintf("nvme%dn%d", ctrl, nsid)
	b, err := os.ReadFile(filepath.Join(c.sys, "block", name, "queue", "logical_block_size"))
	var v int64
	if err == nil {
		v, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	if v > 0 {
		c.blockSize[key] = v
	}
	return v
}
