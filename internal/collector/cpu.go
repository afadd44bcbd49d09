package collector

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/procfs"
)

func init() { Register("cpu", true, newCPUCollector) }

// cpuModes are the /proc/stat columns exported, in kernel order. Guest time
// is already inside user and nice, so it is not a mode of its own here.
var cpuModes = []string{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"}

var cpuSecondsDesc = prometheus.NewDesc(Namespace+"_cpu_seconds_total",
	"Time each CPU spent in each mode since boot (/proc/stat). The rate of one mode is that core's share of time in it: seed 003's core spending 99.71% in softirq is rate(...{mode=\"softirq\"}) = 0.9971. Series: CPUs x 8 modes.",
	[]string{"cpu", "mode"}, nil)

// cpuCollector reads per-core time by mode through prometheus/procfs.
type cpuCollector struct{ fs procfs.FS }

func newCPUCollector(env Env) (Collector, error) {
	fs, err := procfs.NewFS(hostDefaultPaths(env.Paths).ProcFS)
	if err != nil {
		return nil, fmt.Errorf("cpu: %w", err)
	}
	return &cpuCollector{fs: fs}, nil
}

func (c *cpuCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	st, err := c.fs.Stat()
	if err != nil {
		return fmt.Errorf("cpu: %s: %w", filepath.Join("proc", "stat"), err)
	}
	for id, s := range st.CPU {
		cpu := strconv.FormatInt(id, 10)
		for i, v := range []float64{s.User, s.Nice, s.System, s.Idle, s.Iowait, s.IRQ, s.SoftIRQ, s.Steal} {
			ch <- prometheus.MustNewConstMetric(cpuSecondsDesc, prometheus.CounterValue, v, cpu, cpuModes[i])
		}
	}
	return nil
}
