package sim

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/walab/walab/internal/simfs/alloc"
	"github.com/walab/walab/internal/simload"
)

// PreconditionPath is where the exporter mounts PreconditionHandler.
const PreconditionPath = "/api/v1/sim/precondition"

// LiveMap gives a function the logical pages a filesystem's files hold
// (in LPN order) and keeps the filesystem still while it runs:
// (*simfs.FS).WithLive.
type LiveMap func(fn func(live []alloc.Ext) error) error

// SetLiveMap makes Precondition write only the pages m says files hold,
// as a mkfs with discard followed by a copy of the files does; without it
// Precondition writes every logical page.
func (d *Drive) SetLiveMap(m LiveMap) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.live = m
}

// Precondition puts the drive back into one known state. It seals every
// open block and deallocates every logical page (the discard of a mkfs).
// Then, under a filesystem (SetLiveMap), it writes the pages the files
// hold once, in LPN order, as a copy of the files onto the fresh
// filesystem does; otherwise it writes every logical page once in order,
// as a sequential fill of the whole namespace does. Either way every page
// that holds data is mapped exactly once, on stream 0, and every full
// block holds consecutive pages of one write, so two runs that each start
// after it start from the same drive state whatever ran before. The
// deallocation and the writes count as the host's: the lifetime counters
// (host, NAND, trimmed bytes, erases) only grow.
func (d *Drive) Precondition() (Stats, error) {
	d.mu.Lock()
	live := d.live
	d.mu.Unlock()
	if live == nil {
		return d.precondition([]alloc.Ext{{LPN: 0, Pages: d.LogicalPages()}})
	}
	var st Stats
	err := live(func(runs []alloc.Ext) error {
		var err error
		st, err = d.precondition(runs) // none: an empty filesystem leaves the drive empty
		return err
	})
	return st, err
}

// precondition deallocates the drive and writes runs.
func (d *Drive) precondition(runs []alloc.Ext) (Stats, error) {
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
	for _, r := range runs {
		if err := d.fillRun(r); err != nil {
			return Stats{}, err
		}
	}
	d.model.Seal(0)
	return d.stats(), nil
}

// fillRun writes the run's pages on stream 0 in commands of a block's pages.
func (d *Drive) fillRun(r alloc.Ext) error {
	chunk := d.cfg.BlockPages
	for lpn, end := r.LPN, r.LPN+r.Pages; lpn < end; lpn += chunk {
		op := simload.Op{LPN: lpn, Pages: min(chunk, end-lpn), Class: uint8(len(d.classPages))} // no file class
		if _, err := simload.Apply(d.model, op, false); err != nil {
			d.lastErr = err.Error()
			return fmt.Errorf("sim: precondition: %w", err)
		}
		d.commands++
		d.precond += uint64(op.Pages)
		d.placed[0][0]++
		d.placed[0][1] += uint64(op.Pages)
	}
	return nil
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
