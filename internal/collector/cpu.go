package collector

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/procfs"
	"github.com/walab/walab/internal/promql"
)

func init() { Register("cpu", true, newCPUCollector) }

// cpuModes are the /proc/stat columns exported, in kernel order. Guest time
// is already inside user and nice, so it is not a mode of its own here.
var cpuModes = []string{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"}

var cpuSecondsDesc = prometheus.NewDesc(promql.CPUSeconds,
	"Time each CPU spent in each mode since boot (/proc/stat). The rate of one mode is that core's share of time in it: seed 003's core spending 99.71% in softirq is rate(...{mode=\"softirq\"}) = 0.9971. Series: CPUs x 8 modes.",
	[]string{"cpu", "mode"}, nil)

// cpuModePairs are the mode="..." label pairs, in cpuModes order.
var cpuModePairs = func() []*dto.LabelPair {
	out := make([]*dto.LabelPair, len(cpuModes))
	for i, m := range cpuModes {
		out[i] = labelPair("mode", m)
	}
	return out
}()

// cpuModeOrder is the indexes of cpuModes in the order of their names.
var cpuModeOrder = func() []int {
	out := make([]int, len(cpuModes))
	for i := range out {
		out[i] = i
	}
	slices.SortFunc(out, func(a, b int) int { return strings.Compare(cpuModes[a], cpuModes[b]) })
	return out
}()

// cpuCollector reads per-core time by mode through prometheus/procfs.
type cpuCollector struct {
	fs procfs.FS

	mu     sync.Mutex
	cpus   cpuPairs
	series map[int64][][]*dto.LabelPair // CPU -> label pairs per mode, built once (see samples.go)
	order  decimalOrder
}

func newCPUCollector(env Env) (Collector, error) {
	fs, err := procfs.NewFS(env.Paths.ProcFS)
	if err != nil {
		return nil, fmt.Errorf("cpu: %w", err)
	}
	return &cpuCollector{fs: fs, cpus: cpuPairs{}, series: map[int64][][]*dto.LabelPair{}}, nil
}

func (c *cpuCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	st, err := c.fs.Stat()
	if err != nil {
		return fmt.Errorf("cpu: %s: %w", filepath.Join("proc", "stat"), err)
	}
	var out samples
	batch := make([]prometheus.Metric, 0, len(st.CPU)*len(cpuModes))
	c.mu.Lock()
	if len(c.series) > 2*len(st.CPU)+64 {
		clear(c.series) // CPU ids that came and went: start again
	}
	c.cpus.bound(len(st.CPU))
	ids := make([]int, 0, len(st.CPU))
	for id := range st.CPU {
		ids = append(ids, int(id))
	}
	slices.Sort(ids)
	// CPUs and modes in the order of their label text, the order Gather
	// sorts them into (see decimalOrder).
	for _, i := range c.order.of(ids) {
		s := st.CPU[int64(ids[i])]
		labels := c.labels(int64(ids[i]))
		v := [...]float64{s.User, s.Nice, s.System, s.Idle, s.Iowait, s.IRQ, s.SoftIRQ, s.Steal}
		for _, m := range cpuModeOrder {
			batch = append(batch, out.next(cpuSecondsDesc, prometheus.CounterValue, v[m], labels[m]))
		}
	}
	c.mu.Unlock()
	for _, m := range batch {
		ch <- m
	}
	return nil
}

// labels returns the label pairs (cpu, mode) of a CPU's series, one per
// mode. c.mu is held.
func (c *cpuCollector) labels(id int64) [][]*dto.LabelPair {
	l, ok := c.series[id]
	if !ok {
		cpu := c.cpus.get(int(id)).pair
		l = make([][]*dto.LabelPair, len(cpuModes))
		for i, mode := range cpuModePairs {
			l[i] = []*dto.LabelPair{cpu, mode}
		}
		c.series[id] = l
	}
	return l
}
