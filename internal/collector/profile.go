package collector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"

	"github.com/alecthomas/kingpin/v2"
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

// MaxProfileTop bounds --collector.profile.top: the function series;
// DefaultProfileTop is its default. The profiler's defaults are perf's
// 99 Hz (off the timer tick's multiples), mysqld and mariadbd.
const (
	MaxProfileTop           = 100
	DefaultProfileTop       = 20
	defaultProfileFrequency = 99
	maxProfileFrequency     = 1000
)

var defaultProfileProcesses = []string{"mysqld", "mariadbd"}

// profileOptions are the profile collector's flags: samples per second per
// CPU, the comm names sampled and the function series exported.
type profileOptions struct {
	frequency, top int
	processes      []string
}

// profileFlags hold the values of the command line (the defaults until
// one is parsed).
var profileFlags = &profileOptions{frequency: defaultProfileFrequency, top: DefaultProfileTop, processes: defaultProfileProcesses}

func (o *profileOptions) declare(app *kingpin.Application) {
	o.processes = nil // kingpin appends the values, or the defaults, to it
	app.Flag("collector.profile.frequency", "CPU samples per second per CPU the profile collector takes while a sampled process runs (perf's -F).").Default(strconv.Itoa(defaultProfileFrequency)).IntVar(&o.frequency)
	app.Flag("collector.profile.process", "comm name (/proc/PID/comm) of the processes the profile collector samples (repeatable).").Default(defaultProfileProcesses...).StringsVar(&o.processes)
	app.Flag("collector.profile.top", fmt.Sprintf("Functions the profile collector exports (walab_profile_function_samples_total series), 1 to %d.", MaxProfileTop)).Default(strconv.Itoa(DefaultProfileTop)).IntVar(&o.top)
}

// check refuses values that mean nothing, naming the flag; 0 is a value
// typed (the defaults are 99 and 20), refused as -1 is.
func (o *profileOptions) check() error {
	switch {
	case o.frequency < 1 || o.frequency > maxProfileFrequency:
		return fmt.Errorf("--collector.profile.frequency=%d: must be 1 to %d Hz", o.frequency, maxProfileFrequency)
	case o.top < 1 || o.top > MaxProfileTop:
		return fmt.Errorf("--collector.profile.top=%d: must be 1 to %d", o.top, MaxProfileTop)
	}
	for _, p := range o.processes {
		if err := checkCommName(p); err != nil {
			return fmt.Errorf("--collector.profile.process=%q: %w", p, err)
		}
	}
	return nil
}

// Profiler is the CPU profiler the app runs for the profile collector:
// Source samples; nil with Down the reason (a cpuprof reason) when it
// could not start.
type Profiler struct {
	Source ProfileSource
	Down   string
}

// StartProfiler starts the CPU profiler the profile collector's flags
// describe, reading processes under procFS. One that cannot start is no
// error: down is the reason, which the collector reports.
func StartProfiler(procFS string, logger *slog.Logger) (p *cpuprof.Profiler, down string) {
	o := profileFlags
	p, err := cpuprof.Start(cpuprof.Options{Frequency: o.frequency, Comms: o.processes, ProcFS: procFS, Logger: logger.With("component", "profile")})
	if err != nil {
		down = cpuprof.ReasonOther
		if pe := (*cpuprof.Error)(nil); errors.As(err, &pe) {
			down = pe.Reason
		}
		logger.Warn("cpu profiler cannot run: mysqld's functions are not sampled", "reason", down, "err", err)
		return nil, down
	}
	logger.Info("cpu profiler sampling", "frequency_hz", o.frequency, "processes", o.processes)
	return p, ""
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
