package runner

import (
	"sync"
	"time"
)

// reach tracks whether a target can be reached. The target is unreachable
// from a failed connection attempt made while no terminal holds a
// connection until the next successful connect: a server that died, not one
// terminal turned away while the others work (too many connections).
type reach struct {
	mu    sync.Mutex
	held  int       // terminals holding a connection
	since time.Time // start of the current unreachable spell; zero while reachable
	spent time.Duration
}

// connected: a terminal got a connection at now.
func (r *reach) connected(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held++
	if !r.since.IsZero() {
		r.spent += max(now.Sub(r.since), 0)
		r.since = time.Time{}
	}
}

// lost: a terminal gave its connection up.
func (r *reach) lost() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held--
}

// failed: a connection attempt failed at now.
func (r *reach) failed(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held <= 0 && r.since.IsZero() {
		r.since = now
	}
}

// unreachable is the time the target was unreachable up to end.
func (r *reach) unreachable(end time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.spent
	if !r.since.IsZero() {
		d += max(end.Sub(r.since), 0)
	}
	return d
}
