package collector

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

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
	// PerCPU exports walab_irq_interrupts_total per line and CPU (up to
	// lines x CPUs series: the lab's view of where interrupts land);
	// without it each device has one walab_irq_device_interrupts_total.
	PerCPU bool `yaml:"per_cpu"`
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

// irqLineSeries holds the label pairs of one line of interest, built when
// the line first appears and kept while it is there: on a 256-CPU host the
// irq series are tens of thousands a scrape, and building label pairs was
// most of the collector's CPU time. The strings are copies, so they keep no
// /proc/interrupts text alive.
type irqLineSeries struct {
	device, queue string
	irq, dev, q   *dto.LabelPair
	perCPU        map[int][]*dto.LabelPair // cpu, device, irq, queue: the CPUs that took interrupts
	configured    []*dto.LabelPair         // device, irq, kind="configured"
	effective     []*dto.LabelPair         // device, irq, kind="effective"
	offNode       []*dto.LabelPair         // device, irq
	seen          uint64                   // the last scrape that listed the line
}

var (
	kindConfigured = labelPair("kind", "configured")
	kindEffective  = labelPair("kind", "effective")
)

func newIRQLineSeries(irqN int, device, queue string) *irqLineSeries {
	device, queue = strings.Clone(device), strings.Clone(queue)
	l := &irqLineSeries{
		device: device, queue: queue,
		irq: labelPair("irq", strconv.Itoa(irqN)), dev: labelPair("device", device), q: labelPair("queue", queue),
		perCPU: map[int][]*dto.LabelPair{},
	}
	l.configured = []*dto.LabelPair{l.dev, l.irq, kindConfigured}
	l.effective = []*dto.LabelPair{l.dev, l.irq, kindEffective}
	l.offNode = []*dto.LabelPair{l.dev, l.irq}
	return l
}

// cpuLabels returns the label pairs of the line's series for cpu.
func (l *irqLineSeries) cpuLabels(cpu *cpuLabel) []*dto.LabelPair {
	lp, ok := l.perCPU[cpu.id]
	if !ok {
		lp = []*dto.LabelPair{cpu.pair, l.dev, l.irq, l.q}
		l.perCPU[cpu.id] = lp
	}
	return lp
}

// softirqSeries is the label pairs of walab_softirqs_total, by type and
// CPU column, for the CPUs and types of the file they were built for.
type softirqSeries struct {
	cpus   []int
	types  []string
	labels [][][]*dto.LabelPair // [type][column]: cpu, type
	order  []softirqKey         // every series, in the order of its label values
}

// softirqKey is one walab_softirqs_total series: a type and a CPU column.
type softirqKey struct{ typ, col int }

// cpuTotals is one device's interrupts per CPU column of a scrape.
type cpuTotals struct {
	cpus []int // CPU id of each column
	sums []uint64
}

func init() { Register("irq", true, newIRQCollector) }

func newIRQCollector(env Env) (Collector, error) {
	var cfg irqConfig
	if err := env.Config.Decode("irq", &cfg); err != nil {
		return nil, err
	}
	c := &irqCollector{paths: hostDefaultPaths(env.Paths), logger: env.Logger,
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

// lineOfInterest is one line of interest of this scrape.
type lineOfInterest struct {
	irq    int
	series *irqLineSeries
	counts []uint64 // per CPU column; valid during the scrape only
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

// interruptSeries sends walab_irq_interrupts_total for every line of
// interest and returns those lines (in file order), their order by label
// values, where each device's numa_node file is ("" when unknown), and each
// device's interrupts per CPU.
func (c *irqCollector) interruptSeries(ch chan<- prometheus.Metric, out *samples, in irqInputs) (lines []lineOfInterest, order []int, numaPaths map[string]string, totals map[string]cpuTotals) {
	ints := in.ints
	numaPaths, totals = map[string]string{}, map[string]cpuTotals{}
	c.mu.Lock()
	c.gen++
	for i := range ints.Lines {
		l := &ints.Lines[i]
		dev, queue, numa, ok := c.classify(l, in.msi)
		if !ok {
			continue
		}
		ls := c.lineSeries(l.IRQ, dev, queue)
		t, ok := totals[ls.device]
		if !ok {
			numaPaths[ls.device] = c.numaPath(numa, ls.device)
			t = cpuTotals{cpus: ints.CPUs, sums: make([]uint64, len(ints.CPUs))}
			totals[ls.device] = t
		}
		for col, v := range l.Counts {
			t.sums[col] += v
		}
		lines = append(lines, lineOfInterest{l.IRQ, ls, l.Counts})
	}
	for n, ls := range c.lines {
		if ls.seen != c.gen {
			delete(c.lines, n) // lines that went away drop out of the cache
		}
	}
	order = labelOrder(lines)
	batch := deviceInterruptSamples(out, totals)
	if c.perCPU {
		batch = c.interruptSamples(out, ints.CPUs, lines, order)
	}
	c.mu.Unlock()
	for _, m := range batch {
		ch <- m
	}
	return lines, order, numaPaths, totals
}

// labelOrder is the indexes of lines sorted by device, then by the irq
// label's text: the order of the label values of the line's series.
func labelOrder(lines []lineOfInterest) []int {
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := lines[a].series, lines[b].series
		if c := strings.Compare(x.device, y.device); c != 0 {
			return c
		}
		return strings.Compare(x.irq.GetValue(), y.irq.GetValue())
	})
	return order
}

// interruptSamples is the per-CPU interrupt samples, CPUs in the order of
// their label's text, then lines in label order: the order client_golang's
// Gather sorts a family into, so that sort finds nothing to do. A CPU that
// never took a line's interrupt gets no series: NVMe queue IRQs are managed
// (one CPU each), so this exports about one series per line instead of one
// per line and CPU. Counts never go back to 0 before a reboot, so a series,
// once there, stays. c.mu is held.
func (c *irqCollector) interruptSamples(out *samples, cpus []int, lines []lineOfInterest, order []int) []prometheus.Metric {
	var batch []prometheus.Metric
	c.cpus.bound(len(cpus))
	for _, col := range c.columns.of(cpus) {
		cpu := c.cpus.get(cpus[col])
		for _, i := range order {
			if v := lines[i].counts[col]; v != 0 {
				batch = append(batch, out.next(irqInterruptsDesc, prometheus.CounterValue, float64(v), lines[i].series.cpuLabels(cpu)))
			}
		}
	}
	return batch
}

// lineSeries returns the cached label pairs of a line of interest (new
// ones when the line is new or names another device or queue than before)
// and marks the line seen by this scrape. c.mu is held.
func (c *irqCollector) lineSeries(irqN int, dev, queue string) *irqLineSeries {
	ls, ok := c.lines[irqN]
	if !ok || ls.device != dev || ls.queue != queue {
		ls = newIRQLineSeries(irqN, dev, queue)
		c.lines[irqN] = ls
	}
	ls.seen = c.gen
	return ls
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

// hostSeries sends walab_softirqs_total and walab_cpu_numa_node, each in
// the order of its label values (see interruptSamples).
func (c *irqCollector) hostSeries(ch chan<- prometheus.Metric, out *samples, in irqInputs) {
	batch := make([]prometheus.Metric, 0, len(in.soft.Types)*len(in.soft.CPUs)+len(in.cpuNode))
	c.mu.Lock()
	soft := c.softirqLabels(in.soft)
	for _, k := range soft.order {
		v := in.soft.Types[k.typ].Counts[k.col]
		batch = append(batch, out.next(softirqsDesc, prometheus.CounterValue, float64(v), soft.labels[k.typ][k.col]))
	}
	cpus := make([]int, 0, len(in.cpuNode))
	for cpu := range in.cpuNode {
		cpus = append(cpus, cpu)
	}
	slices.Sort(cpus)
	c.cpus.bound(len(cpus))
	for _, i := range c.nodeCPUs.of(cpus) {
		batch = append(batch, out.next(cpuNodeDesc, prometheus.GaugeValue, float64(in.cpuNode[cpus[i]]), c.cpus.get(cpus[i]).only))
	}
	c.mu.Unlock()
	for _, m := range batch {
		ch <- m
	}
}

// softirqLabels returns the label pairs of each softirq type and CPU column
// of s and their order, built again only when the file lists other CPUs or
// types. c.mu is held.
func (c *irqCollector) softirqLabels(s *irq.Softirqs) *softirqSeries {
	cache := &c.soft
	same := slices.Equal(cache.cpus, s.CPUs) && len(cache.types) == len(s.Types)
	for i := 0; same && i < len(s.Types); i++ {
		same = cache.types[i] == s.Types[i].Name
	}
	if same {
		return cache
	}
	c.cpus.bound(len(s.CPUs))
	*cache = softirqSeries{cpus: slices.Clone(s.CPUs)}
	for _, t := range s.Types {
		typ := labelPair("type", t.Name)
		row := make([][]*dto.LabelPair, len(s.CPUs))
		for col, cpu := range s.CPUs {
			row[col] = []*dto.LabelPair{c.cpus.get(cpu).pair, typ}
		}
		cache.types = append(cache.types, t.Name)
		cache.labels = append(cache.labels, row)
	}
	types := make([]int, len(s.Types))
	for i := range types {
		types[i] = i
	}
	slices.SortStableFunc(types, func(a, b int) int { return strings.Compare(cache.types[a], cache.types[b]) })
	var cols decimalOrder
	for _, col := range cols.of(s.CPUs) {
		for _, ti := range types {
			cache.order = append(cache.order, softirqKey{ti, col})
		}
	}
	return cache
}

// numaKind says where a device's numa_node file is.
type numaKind int

const (
	numaNone numaKind = iota
	numaNVMe
	numaNet
)

func (c *irqCollector) numaPath(k numaKind, dev string) string {
	switch k {
	case numaNVMe:
		return filepath.Join(c.paths.SysFS, "class/nvme", dev, "device/numa_node")
	case numaNet:
		return c.netNUMAPath(dev)
	}
	return ""
}

// classify decides whether a line is of interest and names its device,
// its queue (the action name) and where the device's numa_node lives.
func (c *irqCollector) classify(l *irq.Line, msi map[int]string) (dev, queue string, numa numaKind, ok bool) {
	for _, a := range l.Actions {
		if d, ok := nvmeQueueDevice(a); ok {
			return d, a, numaNVMe, true
		}
	}
	if i, ok := msi[l.IRQ]; ok {
		return i, hostFirstOr(l.Actions, ""), numaNet, true
	}
	for _, a := range l.Actions {
		for _, i := range c.ifaces {
			if len(a) > len(i) && a[:len(i)] == i && a[len(i)] == '-' {
				return i, a, numaNet, true
			}
		}
	}
	if c.match != nil {
		for _, a := range l.Actions {
			if m := c.match.FindStringSubmatch(a); m != nil && m[c.matchGr] != "" {
				return m[c.matchGr], a, numaNone, true
			}
		}
	}
	return "", "", numaNone, false
}

// nvmeQueueDevice matches an NVMe queue's action name, ^(nvme\d+)q\d+$,
// and returns the controller ("nvme3" of "nvme3q12").
func nvmeQueueDevice(a string) (string, bool) {
	rest, ok := strings.CutPrefix(a, "nvme")
	if !ok {
		return "", false
	}
	n := leadingDigits(rest)
	if n == 0 || n == len(rest) || rest[n] != 'q' {
		return "", false
	}
	if q := leadingDigits(rest[n+1:]); q == 0 || q != len(rest)-n-1 {
		return "", false
	}
	return a[:len("nvme")+n], true
}

func leadingDigits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
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
