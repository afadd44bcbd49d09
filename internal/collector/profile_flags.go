package collector

// The profile collector's flags and the CPU profiler they describe, which
// the app starts and hands over (Env.Profiler).

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/alecthomas/kingpin/v2"

	"github.com/walab/walab/internal/cpuprof"
)

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
	o.processes = nil // kingpin appends the values given, or the defaults, to it
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
	procs := o.processes
	if len(procs) == 0 {
		procs = defaultProfileProcesses // a command line declared but not parsed
	}
	p, err := cpuprof.Start(cpuprof.Options{Frequency: o.frequency, Comms: procs, ProcFS: procFS, Logger: logger.With("component", "profile")})
	if err != nil {
		down = cpuprof.ReasonOther
		if pe := (*cpuprof.Error)(nil); errors.As(err, &pe) {
			down = pe.Reason
		}
		logger.Warn("cpu profiler cannot run: mysqld's functions are not sampled", "reason", down, "err", err)
		return nil, down
	}
	logger.Info("cpu profiler sampling", "frequency_hz", o.frequency, "processes", procs)
	return p, ""
}
