package exporterapp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/hostfacts"
)

// The bounds of GET /api/v1/host. One read of the facts walks /proc (2.9 s
// of CPU with 100,000 processes) and may meet a hung mount, so at most one
// read runs at a time, for every client; its answer serves the requests
// of hostCacheTTL after it; at most hostMaxWaiting requests wait for a
// read, and the rest are refused with 503.
const (
	hostCacheTTL   = time.Second
	hostReadBound  = 5 * time.Second // one read's deadline, whoever waits
	hostMaxWaiting = 16
)

// hostEndpoint serves the facts with the bounds above.
type hostEndpoint struct {
	read    func(context.Context) hostapi.Facts
	now     func() time.Time
	logger  *slog.Logger
	group   singleflight.Group
	waiting chan struct{}

	mu   sync.Mutex
	last hostapi.Facts
	at   time.Time // when last was read; zero: never
}

// mountHost serves GET /api/v1/host: the facts of this host (read-only; a
// client that may scrape /metrics may read it).
func mountHost(mux *http.ServeMux, cfg *config.File, paths collector.Paths, logger *slog.Logger) error {
	o, err := collector.HostFactsOptions(cfg, paths)
	if err != nil {
		return err
	}
	h := newHostEndpoint(func(ctx context.Context) hostapi.Facts { return hostfacts.Read(ctx, o) }, logger)
	mux.Handle(hostapi.Path, h)
	return nil
}

func newHostEndpoint(read func(context.Context) hostapi.Facts, logger *slog.Logger) *hostEndpoint {
	return &hostEndpoint{read: read, now: time.Now, logger: logger, waiting: make(chan struct{}, hostMaxWaiting)}
}

func (h *hostEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: GET "+hostapi.Path, http.StatusMethodNotAllowed)
		return
	}
	f, err := h.facts(r.Context())
	if err != nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		h.logger.Debug("host facts: write failed", "err", err)
	}
}

// facts are the last read's if it is fresh, or those of the read in
// flight (started if none is), waited for until ctx ends.
func (h *hostEndpoint) facts(ctx context.Context) (hostapi.Facts, error) {
	h.mu.Lock()
	if !h.at.IsZero() && h.now().Sub(h.at) < hostCacheTTL {
		defer h.mu.Unlock()
		return h.last, nil
	}
	h.mu.Unlock()
	select {
	case h.waiting <- struct{}{}:
		defer func() { <-h.waiting }()
	default:
		return hostapi.Facts{}, fmt.Errorf("%d requests already wait for the host facts; try again later", hostMaxWaiting)
	}
	ch := h.group.DoChan("", func() (any, error) {
		// Not the first requester's context: its leaving must not cut
		// the read the others wait for.
		rctx, cancel := context.WithTimeout(context.Background(), hostReadBound)
		defer cancel()
		f := h.read(rctx)
		h.mu.Lock()
		h.last, h.at = f, h.now()
		h.mu.Unlock()
		return f, nil
	})
	select {
	case r := <-ch:
		return r.Val.(hostapi.Facts), nil
	case <-ctx.Done():
		return hostapi.Facts{}, ctx.Err()
	}
}
