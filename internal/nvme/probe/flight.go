package probe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// flight caches one kind of device read: a result (or failure) is served
// for maxAge, and concurrent callers share the one read in flight. The
// read runs detached from its caller's context, so one impatient caller
// neither fails the read the others wait for nor leaves it half done; the
// admin command timeout bounds it.
type flight[T any] struct {
	maxAge time.Duration // <= 0: every call reads
	now    func() time.Time

	mu       sync.Mutex
	last     T
	lastErr  error
	lastAt   time.Time
	inflight *flightCall[T]
	timeouts uint64 // callers whose deadline passed before the read ended
}

type flightCall[T any] struct {
	done  chan struct{}
	v     T
	err   error
	since time.Time
	// hung: a caller's deadline passed while this read was in flight;
	// later callers do not wait for it (ErrHung).
	hung bool
}

// get returns a cached result, the read in flight's, or a new read's.
func (f *flight[T]) get(ctx context.Context, name string, read func(context.Context) (T, error)) (T, error) {
	f.mu.Lock()
	if f.maxAge > 0 && !f.lastAt.IsZero() && f.now().Sub(f.lastAt) < f.maxAge {
		v, err := f.last, f.lastErr
		f.mu.Unlock()
		return v, err
	}
	c := f.inflight
	if c != nil && c.hung {
		f.timeouts++ // served without an answer, as a deadline passing would be
		since := f.now().Sub(c.since)
		f.mu.Unlock()
		var zero T
		return zero, fmt.Errorf("%s: %w (in flight for %s; served as down until it ends)", name, ErrHung, since.Round(time.Millisecond))
	}
	if c == nil {
		c = &flightCall[T]{done: make(chan struct{}), since: f.now()}
		f.inflight = c
		go func() {
			c.v, c.err = read(context.WithoutCancel(ctx))
			f.mu.Lock()
			f.last, f.lastErr, f.lastAt = c.v, c.err, f.now()
			f.inflight = nil
			f.mu.Unlock()
			close(c.done)
		}()
	}
	f.mu.Unlock()
	select {
	case <-c.done:
		return c.v, c.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			f.mu.Lock()
			f.timeouts++
			c.hung = true
			f.mu.Unlock()
		}
		var zero T
		return zero, fmt.Errorf("%s: %w (the device read continues and will serve a later call)", name, ctx.Err())
	}
}

// expire makes the next get read again.
func (f *flight[T]) expire() {
	f.mu.Lock()
	f.lastAt = time.Time{}
	f.mu.Unlock()
}

func (f *flight[T]) timeoutCount() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.timeouts
}
