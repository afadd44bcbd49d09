package collector

import (
	"context"
	"sort"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/cpuprof"
	"github.com/walab/walab/internal/promql"
)

func init() {
	Register("profile", false, newProfileCollector)
	Flags("profile", profileFlags.declare, profileFlags.check)
}

// ProfileSource is the running CPU profiler the app started when the
// profile collector is on (a *cpuprof.Profiler).
type ProfileSource interface {
	Top(n int) []cpuprof.FuncCount
	Totals() (samples uint64, errs map[string]uint64, processes int)
	Frequency() int
	Unnamed() map[string]string
	// Unsampled: processes of the sampled names that are not sampled.
	Unsampled() int
}

var (
	profFuncDesc = prometheus.NewDesc(promql.ProfileFunctionSamples,
		"CPU samples of the sampled processes (--collector.profile.process, default mysqld and mariadbd) whose leaf frame was this function (self time, as perf top shows it), since the exporter started. "+
			"Only the --collector.profile.top functions with the most samples in the last minute have a series, so a function's series comes and goes with its rank; rate() of it over the samples rate is its share of CPU. "+
			"module is \"kernel\" or the mapped file's base name; a function only .eh_frame_hdr knows is named by its start address (0x...), one no table covers is [unknown].",
		[]string{"function", "module"}, nil)
	profSamplesDesc = prometheus.NewDesc(promql.ProfileSamples,
		"CPU samples taken of the sampled processes since the exporter started, at walab_profile_sampling_frequency_hertz on each CPU: divided by the frequency, their CPU seconds.", nil, nil)
	profFreqDesc = prometheus.NewDesc(Namespace+"_profile_sampling_frequency_hertz",
		"Samples per second per CPU the profiler takes while a sampled process runs on it (--collector.profile.frequency).", nil, nil)
	profErrorsDesc = prometheus.NewDesc(Namespace+"_profile_errors_total",
		"Samples or rounds that went wrong: stack_lost (the stack map was full or its bucket taken: the sample has no stack), unsymbolized (its leaf function could not be named), counts_full (samples not counted at all: the counts map was full), drain (rounds in which reading or emptying the maps failed: their counts stay in the map for the next round), processes (listing the processes failed).",
		[]string{"kind"}, nil)
	profProcsDesc = prometheus.NewDesc(Namespace+"_profile_processes",
		"Processes the profiler samples now (their comm name is one of --collector.profile.process).", nil, nil)
	profUnnamedDesc = prometheus.NewDesc(Namespace+"_profile_frames_unnamed_info",
		"Present, 1, while the profiler cannot name frames of a kind (frames: kernel or user), and why: "+
			"needs_cap_syslog (/proc/kallsyms shows the exporter zeros; CAP_SYSLOG would show it the addresses), "+
			"kptr_restrict (kernel.kptr_restrict is 2: no process is shown them), unreadable (/proc/kallsyms could not be read), "+
			"needs_cap_sys_ptrace (a sampled process's /proc/PID/maps is refused: another user's process). Such frames count as [unknown].",
		[]string{"frames", "reason"}, nil)
	profUnsampledDesc = prometheus.NewDesc(Namespace+"_profile_unsampled_processes",
		"Processes whose comm name is one of --collector.profile.process that the profiler does not sample: beyond the 1024 its pid map holds (the lowest pids are sampled), or refused by the kernel. Not counted in walab_profile_processes.", nil, nil)
	profUpDesc = prometheus.NewDesc(Namespace+"_profile_up",
		"1 if the CPU profiler samples, 0 if it cannot (walab_profile_error_info says why).", nil, nil)
	profErrInfoDesc = prometheus.NewDesc(Namespace+"_profile_error_info",
		"Why the CPU profiler does not run: permission (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN, needed), kernel_too_old (Linux before 4.9, without BPF programs on perf events), no_bpf (the kernel refused the maps or the program), no_perf (the kernel refused a CPU-clock perf event), other.",
		[]string{"reason"}, nil)
)

// profileErrKinds are every kind walab_profile_errors_total has, each
// always exported.
var profileErrKinds = []string{cpuprof.ErrCountsFull, cpuprof.ErrDrain, cpuprof.ErrProcesses, cpuprof.ErrStackLost, cpuprof.ErrUnsymbolized}

type profileCollector struct {
	src    ProfileSource
	reason string
	top    int
}

func newProfileCollector(env Env) (Collector, error) {
	if err := profileFlags.check(); err != nil {
		return nil, err
	}
	reason := env.Profiler.Down
	if env.Profiler.Source == nil && reason == "" {
		// A set built without the app (which starts the profiler).
		reason = cpuprof.ReasonOther
	}
	return &profileCollector{src: env.Profiler.Source, reason: reason, top: profileFlags.top}, nil
}

func (c *profileCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	if c.src == nil {
		ch <- prometheus.MustNewConstMetric(profUpDesc, prometheus.GaugeValue, 0)
		ch <- prometheus.MustNewConstMetric(profErrInfoDesc, prometheus.GaugeValue, 1, c.reason)
		return nil
	}
	ch <- prometheus.MustNewConstMetric(profUpDesc, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(profFreqDesc, prometheus.GaugeValue, float64(c.src.Frequency()))
	n, errs, procs := c.src.Totals()
	ch <- prometheus.MustNewConstMetric(profSamplesDesc, prometheus.CounterValue, float64(n))
	ch <- prometheus.MustNewConstMetric(profProcsDesc, prometheus.GaugeValue, float64(procs))
	ch <- prometheus.MustNewConstMetric(profUnsampledDesc, prometheus.GaugeValue, float64(c.src.Unsampled()))
	kinds := append([]string(nil), profileErrKinds...)
	sort.Strings(kinds)
	for _, k := range kinds {
		ch <- prometheus.MustNewConstMetric(profErrorsDesc, prometheus.CounterValue, float64(errs[k]), k)
	}
	unnamed := c.src.Unnamed()
	for _, kind := range []string{"kernel", "user"} {
		if r, ok := unnamed[kind]; ok {
			ch <- prometheus.MustNewConstMetric(profUnnamedDesc, prometheus.GaugeValue, 1, kind, r)
		}
	}
	for _, f := range c.src.Top(c.top) {
		ch <- prometheus.MustNewConstMetric(profFuncDesc, prometheus.CounterValue, float64(f.Total), validLabel(f.Function), validLabel(f.Module))
	}
	return nil
}
