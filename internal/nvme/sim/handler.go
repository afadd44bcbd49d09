package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// PlacementPath is where the exporter mounts Handler.
const PlacementPath = "/api/v1/sim/placement"

// Handler serves the placement switch: GET returns the drive's state as
// JSON, POST ?streams=on|off switches placement and returns the new state.
func (d *Drive) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodPost:
			var on bool
			switch v := r.URL.Query().Get("streams"); v {
			case "on", "true", "1":
				on = true
			case "off", "false", "0":
			default:
				http.Error(w, fmt.Sprintf("streams must be on or off, got %q", v), http.StatusBadRequest)
				return
			}
			d.SetPlacement(on)
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(d.Stats())
	})
}
