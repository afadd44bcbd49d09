package collector

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/procfs"
)

// processConfig is the `process:` section: the processes whose CPU and
// memory a run is read against (mysqld per target, the placement daemon, a
// RAID daemon), by their comm name (/proc/PID/comm, 15 characters at most).
type processConfig struct {
	Names []string `yaml:"names"`
}

var defaultProcessNames = []string{"mysqld", "mariadbd", "astream"}

func (c *processConfig) complete() error {
	if c.Names == nil {
		c.Names = defaultProcessNames
	}
	return checkList("process", "name", c.Names, checkCommName)
}

// maxProcessesPerName bounds the series of one name; the rest are counted
// in walab_process_matched only.
const maxProcessesPerName = 16

var (
	procCPUDesc = prometheus.NewDesc(Namespace+"_process_cpu_seconds_total",
		"CPU time of a watched process (by comm name) in user and system mode, from /proc/PID/stat. A restarted process is a new pid series.",
		[]string{"name", "pid", "mode"}, nil)
	procRSSDesc = prometheus.NewDesc(Namespace+"_process_resident_memory_bytes",
		"Resident memory of a watched process.", []string{"name", "pid"}, nil)
	procAllowedDesc = prometheus.NewDesc(Namespace+"_process_allowed_cpus",
		"CPUs the process may run on (Cpus_allowed_list of /proc/PID/status): seed 001 binds mysqld and the RAID daemon to chosen cores.",
		[]string{"name", "pid"}, nil)
	procMatchedDesc = prometheus.NewDesc(Namespace+"_process_matched",
		fmt.Sprintf("Processes running with the watched comm name (series are exported for the first %d by pid).", maxProcessesPerName),
		[]string{"name"}, nil)
)

var commName = regexp.MustCompile(`^[^/\x00]{1,15}$`)

// checkCommName refuses what cannot be a comm name (/proc/PID/comm).
func checkCommName(n string) error {
	if !commName.MatchString(n) {
		return fmt.Errorf("a comm name is 1 to 15 characters without '/'")
	}
	return nil
}

type processCollector struct {
	fs     procfs.FS
	names  []string
	logger *slog.Logger
}

func init() { Register("process", true, newProcessCollector) }

func newProcessCollector(env Env) (Collector, error) {
	var cfg processConfig
	if err := decodeSection(env.Config, "process", &cfg); err != nil {
		return nil, err
	}
	fs, err := procfs.NewFS(env.Paths.ProcFS)
	if err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	return &processCollector{fs: fs, names: cfg.Names, logger: env.log()}, nil
}

func (c *processCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	procs, err := c.fs.AllProcs()
	if err != nil {
		return fmt.Errorf("process: %w", err)
	}
	watched := map[string]bool{}
	for _, n := range c.names {
		watched[n] = true
	}
	byName := map[string][]procfs.ProcStat{}
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil || !watched[st.Comm] {
			continue // gone meanwhile, or not watched
		}
		byName[st.Comm] = append(byName[st.Comm], st)
	}
	for _, name := range c.names {
		sts := byName[name]
		ch <- prometheus.MustNewConstMetric(procMatchedDesc, prometheus.GaugeValue, float64(len(sts)), name)
		sort.Slice(sts, func(i, j int) bool { return sts[i].PID < sts[j].PID })
		for _, st := range sts[:min(len(sts), maxProcessesPerName)] {
			pid := strconv.Itoa(st.PID)
			ch <- prometheus.MustNewConstMetric(procCPUDesc, prometheus.CounterValue, float64(st.UTime)/userHZ, name, pid, "user")
			ch <- prometheus.MustNewConstMetric(procCPUDesc, prometheus.CounterValue, float64(st.STime)/userHZ, name, pid, "system")
			ch <- prometheus.MustNewConstMetric(procRSSDesc, prometheus.GaugeValue, float64(st.ResidentMemory()), name, pid)
			if p, err := c.fs.Proc(st.PID); err == nil {
				if s, err := p.NewStatus(); err == nil && len(s.CpusAllowedList) > 0 {
					ch <- prometheus.MustNewConstMetric(procAllowedDesc, prometheus.GaugeValue, float64(len(s.CpusAllowedList)), name, pid)
				}
			}
		}
	}
	return nil
}

// userHZ is the kernel's clock tick for /proc times (USER_HZ, 100 on every
// Linux architecture walab runs on; procfs assumes the same).
const userHZ = 100
