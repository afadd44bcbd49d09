package exporterapp

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/hostfacts"
)

// mountHost serves GET /api/v1/host: the facts of this host, read at each
// request (read-only; a client that may scrape /metrics may read it).
func mountHost(mux *http.ServeMux, cfg *config.File, paths collector.Paths, logger *slog.Logger) error {
	o, err := collector.HostFactsOptions(cfg, paths)
	if err != nil {
		return err
	}
	mux.HandleFunc(hostapi.Path, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "read-only: GET "+hostapi.Path, http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(hostfacts.Read(o)); err != nil {
			logger.Debug("host facts: write failed", "err", err)
		}
	})
	return nil
}
