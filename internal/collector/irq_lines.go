// The irq collector's first job: which interrupt lines are of interest
// (NVMe queues, NIC queues, the configured regexp), their interrupts per
// CPU, and the host's softirqs and CPU NUMA nodes.

package collector

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/walab/walab/internal/irq"
)

var nvmeQueueRE = regexp.MustCompile(`^(nvme\d+)q\d+$`)

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

// lineOfInterest is one line of interest of this scrape.
type lineOfInterest struct {
	irq    int
	series *irqLineSeries
	counts []uint64 // per CPU column; valid during the scrape only
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
