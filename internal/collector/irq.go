package collector

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"

	"github.com/walab/walab/internal/irq"
	"github.com/walab/walab/internal/placement"
)

// irqConfig is the `irq:` section.
type irqConfig struct {
	// Interfaces are NICs whose queues are lines of interest: matched by the
	// PCI function's msi_irqs and by action names starting with "<if>-".
	Interfaces []string `yaml:"interfaces"`
	// Match is an extra regexp on action names; its group named "device"
	// (or else its first group, or else the whole match) is the device label.
	Match string `yaml:"match"`
}

var nvmeQueueRE = regexp.MustCompile(`^(nvme\d+)q\d+$`)

var (
	irqInterruptsDesc = prometheus.NewDesc(Namespace+"_irq_interrupts_total",
		"Interrupts taken per CPU on an interrupt line of interest (NVMe queues, configured NIC queues, the configured regexp).",
		[]string{"irq", "device", "queue", "cpu"}, nil)
	irqAffinityDesc = prometheus.NewDesc(Namespace+"_irq_affinity_cpus",
		"Number of CPUs in the line's affinity list: configured is smp_affinity_list, effective is effective_affinity_list.",
		[]string{"irq", "device", "kind"}, nil)
	irqOffNodeDesc = prometheus.NewDesc(Namespace+"_irq_off_numa_node",
		"1 if any CPU the line is delivered to (effective affinity, else configured) is on another NUMA node than its device.",
		[]string{"irq", "device"}, nil)
	irqBusiestDesc = prometheus.NewDesc(Namespace+"_irq_busiest_cpu_share_ratio",
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

	logger *slog.Logger

	mu          sync.Mutex
	lastSkipped string                      // the skipped-lines report last logged
	prev        map[string]map[int]uint64   // device -> CPU -> interrupts at the previous scrape
	labels      map[irqKey][]*dto.LabelPair // label pairs of last scrape's per-CPU series
}

// irqKey names one per-CPU interrupt series.
type irqKey struct {
	irq, cpu      int
	device, queue string
}

// irqCounter is one walab_irq_interrupts_total sample whose label pairs are
// built once and reused while the line exists: on a 256-CPU host this is
// tens of thousands of series a scrape, and building label pairs was most of
// the collector's CPU time. client_golang treats label pairs as immutable,
// so sharing them across scrapes is safe.
type irqCounter struct {
	labels []*dto.LabelPair
	value  float64
}

func (m *irqCounter) Desc() *prometheus.Desc { return irqInterruptsDesc }

func (m *irqCounter) Write(out *dto.Metric) error {
	out.Label = m.labels
	out.Counter = &dto.Counter{Value: proto.Float64(m.value)}
	return nil
}

// irqLabelPairs builds the sorted label pairs (cpu, device, irq, queue).
func irqLabelPairs(k irqKey) []*dto.LabelPair {
	pair := func(n, v string) *dto.LabelPair { return &dto.LabelPair{Name: proto.String(n), Value: proto.String(v)} }
	return []*dto.LabelPair{
		pair("cpu", strconv.Itoa(k.cpu)),
		pair("device", k.device),
		pair("irq", strconv.Itoa(k.irq)),
		pair("queue", k.queue),
	}
}

func init() { Register("irq", true, newIRQCollector) }

func newIRQCollector(env Env) (Collector, error) {
	var cfg irqConfig
	if err := env.Config.Decode("irq", &cfg); err != nil {
		return nil, err
	}
	c := &irqCollector{paths: hostDefaultPaths(env.Paths), prev: map[string]map[int]uint64{}, logger: env.Logger}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if err := checkInterfaces(cfg.Interfaces); err != nil {
		return nil, err
	}
	c.ifaces = append(c.ifaces, cfg.Interfaces...)
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

// hostDefaultPaths fills unset roots with the real pseudo-filesystems.
func hostDefaultPaths(p Paths) Paths {
	if p.ProcFS == "" {
		p.ProcFS = "/proc"
	}
	if p.SysFS == "" {
		p.SysFS = "/sys"
	}
	if p.DevFS == "" {
		p.DevFS = "/dev"
	}
	return p
}

// irqDevice is one device that owns lines of interest.
type irqDevice struct {
	name     string
	numaPath string // "" when unknown
}

func (c *irqCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	b, err := os.ReadFile(filepath.Join(c.paths.ProcFS, "interrupts"))
	if err != nil {
		return err
	}
	ints, err := irq.ParseInterrupts(b)
	if err != nil {
		return err
	}
	c.noteSkipped(ints.Skipped)
	b, err = os.ReadFile(filepath.Join(c.paths.ProcFS, "softirqs"))
	if err != nil {
		return err
	}
	soft, err := irq.ParseSoftirqs(b)
	if err != nil {
		return err
	}
	cpuNode, err := irq.CPUNodes(c.paths.SysFS)
	if err != nil {
		return err
	}
	msi := map[int]string{}
	for _, i := range c.ifaces {
		irqs, err := irq.MSIIRQs(c.paths.SysFS, i)
		if err != nil {
			return err
		}
		for _, n := range irqs {
			msi[n] = i
		}
	}

	devices := map[string]*irqDevice{}
	totals := map[string]map[int]uint64{}
	type lineOfInterest struct {
		line   *irq.Line
		device string
		label  string
	}
	var lines []lineOfInterest
	c.mu.Lock()
	oldLabels := c.labels
	newLabels := make(map[irqKey][]*dto.LabelPair, len(oldLabels))
	for i := range ints.Lines {
		l := &ints.Lines[i]
		dev, queue, numaPath, ok := c.classify(l, msi)
		if !ok {
			continue
		}
		if devices[dev] == nil {
			devices[dev] = &irqDevice{name: dev, numaPath: numaPath}
			totals[dev] = map[int]uint64{}
		}
		for col, v := range l.Counts {
			totals[dev][ints.CPUs[col]] += v
			// A CPU that never took this line's interrupt gets no series: NVMe
			// queue IRQs are managed (one CPU each), so this exports about one
			// series per line instead of one per line and CPU. Counts never go
			// back to 0 before a reboot, so a series, once there, stays.
			if v == 0 {
				continue
			}
			k := irqKey{irq: l.IRQ, cpu: ints.CPUs[col], device: dev, queue: queue}
			lp, ok := oldLabels[k]
			if !ok {
				lp = irqLabelPairs(k)
			}
			newLabels[k] = lp // lines that went away drop out of the cache
			ch <- &irqCounter{labels: lp, value: float64(v)}
		}
		lines = append(lines, lineOfInterest{l, dev, strconv.Itoa(l.IRQ)})
	}
	c.labels = newLabels
	c.mu.Unlock()

	devNode := map[string]int{}
	for name, d := range devices {
		if d.numaPath == "" {
			continue
		}
		n, ok, err := irq.ReadNUMANode(d.numaPath)
		if err != nil {
			return err
		}
		if ok {
			devNode[name] = n
			ch <- prometheus.MustNewConstMetric(deviceNodeDesc, prometheus.GaugeValue, float64(n), name)
		}
	}

	for _, li := range lines {
		if err := ctx.Err(); err != nil {
			return err
		}
		aff, ok, err := irq.ReadAffinity(c.paths.ProcFS, li.line.IRQ)
		if err != nil {
			return err
		}
		if !ok {
			continue // line freed since /proc/interrupts was read
		}
		ch <- prometheus.MustNewConstMetric(irqAffinityDesc, prometheus.GaugeValue, float64(len(aff.Configured)), li.label, li.device, "configured")
		delivered := aff.Configured
		if aff.HasEffective {
			ch <- prometheus.MustNewConstMetric(irqAffinityDesc, prometheus.GaugeValue, float64(len(aff.Effective)), li.label, li.device, "effective")
			delivered = aff.Effective
		}
		if off, known := offNode(delivered, devNode, li.device, cpuNode); known {
			ch <- prometheus.MustNewConstMetric(irqOffNodeDesc, prometheus.GaugeValue, hostBoolFloat(off), li.label, li.device)
		}
	}

	for dev, share := range c.busiestShares(totals) {
		ch <- prometheus.MustNewConstMetric(irqBusiestDesc, prometheus.GaugeValue, share, dev)
	}

	for _, t := range soft.Types {
		for col, v := range t.Counts {
			ch <- prometheus.MustNewConstMetric(softirqsDesc, prometheus.CounterValue, float64(v), strconv.Itoa(soft.CPUs[col]), t.Name)
		}
	}
	for cpu, node := range cpuNode {
		ch <- prometheus.MustNewConstMetric(cpuNodeDesc, prometheus.GaugeValue, float64(node), strconv.Itoa(cpu))
	}

	running, err := placement.Running(c.paths.ProcFS, "irqbalance", "")
	if err != nil {
		return err
	}
	ch <- prometheus.MustNewConstMetric(irqbalanceDesc, prometheus.GaugeValue, hostBoolFloat(running))
	return nil
}

// classify decides whether a line is of interest and names its device,
// its queue (the action name) and where the device's numa_node lives.
func (c *irqCollector) classify(l *irq.Line, msi map[int]string) (dev, queue, numaPath string, ok bool) {
	for _, a := range l.Actions {
		if m := nvmeQueueRE.FindStringSubmatch(a); m != nil {
			return m[1], a, filepath.Join(c.paths.SysFS, "class/nvme", m[1], "device/numa_node"), true
		}
	}
	if i, ok := msi[l.IRQ]; ok {
		return i, hostFirstOr(l.Actions, ""), c.netNUMAPath(i), true
	}
	for _, a := range l.Actions {
		for _, i := range c.ifaces {
			if len(a) > len(i) && a[:len(i)] == i && a[len(i)] == '-' {
				return i, a, c.netNUMAPath(i), true
			}
		}
	}
	if c.match != nil {
		for _, a := range l.Actions {
			if m := c.match.FindStringSubmatch(a); m != nil && m[c.matchGr] != "" {
				return m[c.matchGr], a, "", true
			}
		}
	}
	return "", "", "", false
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
func (c *irqCollector) busiestShares(totals map[string]map[int]uint64) map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]float64{}
	for dev, cur := range totals {
		prev, ok := c.prev[dev]
		if !ok {
			continue
		}
		var sum, max uint64
		valid := true
		for cpu, v := range cur {
			p := prev[cpu] // a CPU that came online counts from 0
			if v < p {
				valid = false
				break
			}
			d := v - p
			sum += d
			if d > max {
				max = d
			}
		}
		if valid && sum > 0 {
			out[dev] = float64(max) / float64(sum)
		}
	}
	c.prev = totals // devices that vanished are forgotten: no unbounded history
	return out
}

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
