package exporterapp

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/cpuprof"
	"github.com/walab/walab/internal/hotspots"
)

// The bounds of the profile endpoint.
const (
	maxProfileSeconds    = 300
	profileMaxRecordings = 2
)

// startProfile starts the CPU profiler when the profile collector is on.
// One that cannot start is no error: the collector reports why.
func (a *App) startProfile(o Options, logger *slog.Logger) collector.Profiler {
	if !collector.IsEnabled("profile") {
		return collector.Profiler{}
	}
	a.profiler, a.profileDown = collector.StartProfiler(o.Paths.ProcFS, logger)
	if a.profiler == nil {
		return collector.Profiler{Down: a.profileDown}
	}
	return collector.Profiler{Source: a.profiler}
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
