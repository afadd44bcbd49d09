package sim

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/walab/walab/internal/simload"
)

// PreconditionPath is where the exporter mounts PreconditionHandler.
const PreconditionPath = "/api/v1/sim/precondition"

// Precondition puts the drive back into the state a cold fill leaves: it
// seals every open block, deallocates every logical page (the discard of a
// mkfs), then writes every logical page once in order on stream 0, as a
// sequential fill of the whole namespace does. Afterwards every logical page
// is mapped exactly once, so the pages of files that hold data stay mapped,
// and every full block holds consecutive pages of one write, so two runs that
// each start after it start from the same drive state whatever ran before.
// The deallocation and the writes count as the host's: the lifetime counters
// (host, NAND, trimmed bytes, erases) only grow.
func (d *Drive) Precondition() (Stats, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return Stats{}, fmt.Errorf("sim: %s: drive closed", d.cfg.Name)
	}
	if d.feedErr != nil {
		return Stats{}, d.feedErr
	}
	_ = d.advance() // account the traffic so far under the old state
	for s := 0; s < d.model.Config().Streams; s++ {
		d.model.Seal(s)
	}
	n := d.model.Config().LogicalPages
	if err := d.model.Trim(0, n); err != nil {
		return Stats{}, fmt.Errorf("sim: precondition: %w", err)
	}
	chunk := d.cfg.BlockPages
	for lpn := uint32(0); lpn < n; lpn += chunk {
		op := simload.Op{LPN: lpn, Pages: min(chunk, n-lpn), Class: uint8(len(d.classPages))} // no file class
		if _, err := simload.Apply(d.model, op, false); err != nil {
			d.lastErr = err.Error()
			return Stats{}, fmt.Errorf("sim: precondition: %w", err)
		}
		d.commands++
		d.precond += uint64(op.Pages)
		d.placed[0][0]++
		d.placed[0][1] += uint64(op.Pages)
	}
	d.model.Seal(0)
	return d.stats(), nil
}

// PreconditionHandler serves Precondition: POST runs it and returns the
// drive's state as JSON; any other method is refused. Mount it behind the
// mutation guard: it rewrites the whole drive.
func (d *Drive) PreconditionHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "method not allowed: POST re-preconditions the simulated drive", http.StatusMethodNotAllowed)
			return
		}
		st, err := d.Precondition()
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(st)
	})
}
