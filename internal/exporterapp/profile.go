package exporterapp

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/cpuprof"
	"github.com/walab/walab/internal/hotspots"
)

// The profile collector's defaults: perf's 99 Hz (off the timer tick's
// multiples), mysqld and mariadbd, the top 20 functions.
const (
	DefaultProfileFrequency = 99
	DefaultProfileTop       = collector.DefaultProfileTop
	maxProfileFrequency     = 1000
	maxProfileSeconds       = 300
	profileMaxRecordings    = 2
)

// DefaultProfileProcesses are the comm names sampled by default.
var DefaultProfileProcesses = []string{"mysqld", "mariadbd"}

// profileOptions fills the profiler's unset options with the defaults and
// refuses values that mean nothing, naming the flag.
func (o *Options) profileOptions() (freq, top int, procs []string, err error) {
	freq, top, procs = o.ProfileFrequency, o.ProfileTop, o.ProfileProcesses
	if freq == 0 {
		freq = DefaultProfileFrequency
	}
	if top == 0 {
		top = DefaultProfileTop
	}
	if len(procs) == 0 {
		procs = DefaultProfileProcesses
	}
	if err := checkProfileBounds(freq, top); err != nil {
		return 0, 0, nil, err
	}
	for _, p := range procs {
		if err := collector.CheckCommName(p); err != nil {
			return 0, 0, nil, fmt.Errorf("--collector.profile.process=%q: %w", p, err)
		}
	}
	return freq, top, procs, nil
}

// CheckProfileFlags refuses the profile flags as given on a command line,
// where 0 is a value typed (the flags' defaults are 99 and 20), not unset:
// 0 is refused as -1 is.
func (o *Options) CheckProfileFlags() error {
	return checkProfileBounds(o.ProfileFrequency, o.ProfileTop)
}

func checkProfileBounds(freq, top int) error {
	switch {
	case freq < 1 || freq > maxProfileFrequency:
		return fmt.Errorf("--collector.profile.frequency=%d: must be 1 to %d Hz", freq, maxProfileFrequency)
	case top < 1 || top > collector.MaxProfileTop:
		return fmt.Errorf("--collector.profile.top=%d: must be 1 to %d", top, collector.MaxProfileTop)
	}
	return nil
}

// startProfile starts the CPU profiler when the profile collector is on.
// One that cannot start is no error: the collector reports why.
func (a *App) startProfile(o Options, logger *slog.Logger) (env collector.Env, err error) {
	if !collector.IsEnabled("profile") {
		return env, nil
	}
	freq, top, procs, err := o.profileOptions()
	if err != nil {
		return env, err
	}
	env.ProfileTop = top
	p, err := cpuprof.Start(cpuprof.Options{Frequency: freq, Comms: procs, ProcFS: o.Paths.ProcFS, Logger: logger.With("component", "profile")})
	if err != nil {
		var pe *cpuprof.Error
		env.ProfileDown = cpuprof.ReasonOther
		if errors.As(err, &pe) {
			env.ProfileDown = pe.Reason
		}
		logger.Warn("cpu profiler cannot run: mysqld's functions are not sampled", "reason", env.ProfileDown, "err", err)
		a.profileDown = env.ProfileDown
		return env, nil
	}
	logger.Info("cpu profiler sampling", "frequency_hz", freq, "processes", procs)
	a.profiler = p
	env.Profile = p
	return env, nil
}

// profileEndpoint serves GET ?seconds=N: a pprof CPU profile of the next N
// seconds (default 30, at most 300), read-only, at most
// profileMaxRecordings at once.
type profileEndpoint struct {
	p      *cpuprof.Profiler // nil: the collector is off or could not start
	down   string
	slots  chan struct{}
	logger *slog.Logger
}

func (h *profileEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		http.Error(w, "read-only: GET "+hotspots.Path+"?seconds=N", http.StatusMethodNotAllowed)
		return
	}
	if h.p == nil {
		if h.down == "" {
			http.Error(w, "the profile collector is off: start the exporter with --collector.profile", http.StatusNotFound)
			return
		}
		http.Error(w, "the cpu profiler cannot run here: "+h.down+" (see walab_profile_error_info)", http.StatusServiceUnavailable)
		return
	}
	secs := 30
	if s := r.URL.Query().Get("seconds"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > maxProfileSeconds {
			http.Error(w, fmt.Sprintf("seconds=%q: a whole number from 1 to %d", s, maxProfileSeconds), http.StatusBadRequest)
			return
		}
		secs = v
	}
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		http.Error(w, fmt.Sprintf("%d profiles are being recorded; try again later", profileMaxRecordings), http.StatusServiceUnavailable)
		return
	}
	start := time.Now()
	samples := h.p.Record(r.Context(), time.Duration(secs)*time.Second)
	if r.Context().Err() != nil {
		return // the client left
	}
	pp, err := cpuprof.Profile(samples, h.p.Frequency(), start, time.Since(start))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="profile.pb.gz"`)
	if err := cpuprof.WriteProfile(w, pp); err != nil {
		h.logger.Debug("profile: write failed", "err", err)
	}
}
