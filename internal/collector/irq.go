// The irq collector: its series, configuration and scrape, which reads
// /proc/interrupts, /proc/softirqs and the NUMA topology once and hands
// them to its two jobs, counting (irq_lines.go) and placement
// (irq_placement.go).

package collector

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/irq"
	"github.com/walab/walab/internal/placement"
	"github.com/walab/walab/internal/promql"
)

// irqConfig is the `irq:` section.
type irqConfig struct {
	// Interfaces are NICs whose queues are lines of interest: matched by the
	// PCI function's msi_irqs and by action names starting with "<if>-".
	Interfaces []string `yaml:"interfaces"`
	// Match is an extra regexp on action names; its group named "device"
	// (or else its first group, or else the whole match) is the device label.
	Match string `yaml:"match"`
	// PerCPU exports walab_irq_interrupts_total per line and CPU (up to
	// lines x CPUs series: the lab's view of where interrupts land);
	// without it each device has one walab_irq_device_interrupts_total.
	PerCPU bool `yaml:"per_cpu"`
}

var (
	irqInterruptsDesc = prometheus.NewDesc(Namespace+"_irq_interrupts_total",
		"Interrupts taken per CPU on an interrupt line of interest (NVMe queues, configured NIC queues, the configured regexp).",
		[]string{"irq", "device", "queue", "cpu"}, nil)
	irqAffinityDesc = prometheus.NewDesc(Namespace+"_irq_affinity_cpus",
		"Number of CPUs in the line's affinity list: configured is smp_affinity_list, effective is effective_affinity_list.",
		[]string{"irq", "device", "kind"}, nil)
	irqOffNodeDesc = prometheus.NewDesc(promql.IRQOffNUMANode,
		"1 if any CPU the line is delivered to (effective affinity, else configured) is on another NUMA node than its device.",
		[]string{"irq", "device"}, nil)
	irqBusiestDesc = prometheus.NewDesc(promql.IRQBusiestCPUShare,
		"Share of the device's interrupts taken by its busiest CPU between the previous scrape and this one (1 = all on one core).",
		[]string{"device"}, nil)
	softirqsDesc = prometheus.NewDesc(Namespace+"_softirqs_total",
		"Softirqs run per CPU and type, from /proc/softirqs.", []string{"cpu", "type"}, nil)
	cpuNodeDesc = prometheus.NewDesc(Namespace+"_cpu_numa_node",
		"NUMA node of the CPU, from sysfs node cpulists.", []string{"cpu"}, nil)
	irqbalanceDesc = prometheus.NewDesc(Namespace+"_irqbalance_running",
		"1 if an irqbalance process runs (it rewrites IRQ affinity behind a tuned layout).", nil, nil)
	deviceNodeDesc = prometheus.NewDesc(Namespace+"_device_numa_node",
		"NUMA node of a device that owns lines of interest (-1: the kernel reports none).", []string{"device"}, nil)
)

type irqCollector struct {
	paths   Paths
	ifaces  []string
	match   *regexp.Regexp
	matchGr int // submatch index naming the device, 0 for the whole match
	perCPU  bool

	logger *slog.Logger

	// scratch keeps the memory of reading and parsing /proc/interrupts
	// (megabytes on a big host) from one scrape to the next, for up to two
	// concurrent scrapes (a sync.Pool would drop it at every collection).
	scratch chan *irqScratch

	mu          sync.Mutex
	lastSkipped string                 // the skipped-lines report last logged
	prev        map[string]cpuTotals   // device -> interrupts per CPU at the previous scrape
	gen         uint64                 // scrapes so far: marks the lines seen by this one
	lines       map[int]*irqLineSeries // label pairs of the lines of interest, by IRQ number
	cpus        cpuPairs
	soft        softirqSeries
	columns     decimalOrder // /proc/interrupts' CPU columns by label text
	nodeCPUs    decimalOrder // the CPUs of walab_cpu_numa_node by label text
}

var (
	kindConfigured = labelPair("kind", "configured")
	kindEffective  = labelPair("kind", "effective")
)

func init() { Register("irq", true, newIRQCollector) }

func newIRQCollector(env Env) (Collector, error) {
	var cfg irqConfig
	if err := env.Config.Decode("irq", &cfg); err != nil {
		return nil, err
	}
	c := &irqCollector{paths: env.Paths, logger: env.log(),
		prev: map[string]cpuTotals{}, lines: map[int]*irqLineSeries{}, cpus: cpuPairs{}}
	c.scratch = make(chan *irqScratch, 2)
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if err := checkInterfaces(cfg.Interfaces); err != nil {
		return nil, err
	}
	c.ifaces = append(c.ifaces, cfg.Interfaces...)
	c.perCPU = cfg.PerCPU
	if cfg.Match != "" {
		re, err := regexp.Compile(cfg.Match)
		if err != nil {
			return nil, fmt.Errorf("irq: match: %w", err)
		}
		c.match = re
		if i := re.SubexpIndex("device"); i > 0 {
			c.matchGr = i
		} else if re.NumSubexp() > 0 {
			c.matchGr = 1
		}
	}
	return c, nil
}

// irqScratch is memory one scrape reuses from an earlier one.
type irqScratch struct {
	buf    []byte // a file's contents
	parser irq.InterruptsParser
}

// irqInputs are the files one scrape reads before it emits anything.
type irqInputs struct {
	ints    *irq.Interrupts
	soft    *irq.Softirqs
	cpuNode map[int]int    // CPU -> NUMA node
	msi     map[int]string // IRQ -> configured interface owning it
}

func (c *irqCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	var s *irqScratch
	select {
	case s = <-c.scratch:
	default:
		s = new(irqScratch)
	}
	defer func() {
		select {
		case c.scratch <- s: // nothing of the parse outlives Update
		default:
		}
	}()
	in, err := c.readInputs(s)
	if err != nil {
		return err
	}
	var out samples
	lines, order, numaPaths, totals := c.interruptSeries(ch, &out, in)
	devNode, err := emitDeviceNodes(ch, numaPaths)
	if err != nil {
		return err
	}
	if err := c.affinitySeries(ctx, ch, &out, lines, order, devNode, in.cpuNode); err != nil {
		return err
	}
	for dev, share := range c.busiestShares(totals) {
		ch <- prometheus.MustNewConstMetric(irqBusiestDesc, prometheus.GaugeValue, share, dev)
	}
	c.hostSeries(ch, &out, in)
	running, err := placement.Running(c.paths.ProcFS, "irqbalance", "")
	if err != nil {
		return err
	}
	ch <- prometheus.MustNewConstMetric(irqbalanceDesc, prometheus.GaugeValue, hostBoolFloat(running))
	return nil
}

// readInputs reads /proc/interrupts, /proc/softirqs, the CPUs' NUMA nodes
// and the configured interfaces' MSI vectors.
func (c *irqCollector) readInputs(s *irqScratch) (in irqInputs, err error) {
	if s.buf, err = readFileInto(filepath.Join(c.paths.ProcFS, "interrupts"), s.buf); err != nil {
		return in, err
	}
	if in.ints, err = s.parser.Parse(s.buf); err != nil {
		return in, err
	}
	c.noteSkipped(in.ints.Skipped)
	if s.buf, err = readFileInto(filepath.Join(c.paths.ProcFS, "softirqs"), s.buf); err != nil {
		return in, err
	}
	if in.soft, err = irq.ParseSoftirqs(s.buf); err != nil {
		return in, err
	}
	if in.cpuNode, err = irq.CPUNodes(c.paths.SysFS); err != nil {
		return in, err
	}
	in.msi = map[int]string{}
	for _, i := range c.ifaces {
		irqs, err := irq.MSIIRQs(c.paths.SysFS, i)
		if err != nil {
			return in, err
		}
		for _, n := range irqs {
			in.msi[n] = i
		}
	}
	return in, nil
}

const (
	numaNone numaKind = iota
	numaNVMe
	numaNet
)

func hostBoolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func hostFirstOr(s []string, def string) string {
	if len(s) == 0 {
		return def
	}
	return s[0]
}

// noteSkipped logs the /proc/interrupts lines that could not be parsed
// (they cost their own series only), once per change.
func (c *irqCollector) noteSkipped(skipped []string) {
	report := strings.Join(skipped, "; ")
	c.mu.Lock()
	changed := report != c.lastSkipped
	c.lastSkipped = report
	c.mu.Unlock()
	if changed && report != "" {
		c.logger.Warn("some /proc/interrupts lines could not be parsed; their series are absent", "lines", report)
	}
}

// readFileInto reads the file at path into buf, grown as needed, and
// returns the contents; errors are those of os.ReadFile.
func readFileInto(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// checkInterfaces refuses an `irq: interfaces` entry that is not a plain
// interface name (it becomes a sysfs path component).
func checkInterfaces(ifaces []string) error {
	for _, i := range ifaces {
		if i == "" || i == "." || i == ".." || filepath.Base(i) != i {
			return fmt.Errorf("irq: interface name %q is not a plain name", i)
		}
	}
	return nil
}
