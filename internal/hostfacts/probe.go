package hostfacts

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Prober runs the calls that can block in the kernel for ever on a hung
// mount (stat, statfs of a hard NFS or FUSE mount whose server is gone).
// Such a call cannot be cancelled: its goroutine holds an OS thread until
// the kernel answers. So a Prober has at most one call of each kind out
// per path: a caller that comes while one is out waits for that one; once
// a caller has given up on it, the path is stuck and later callers fail at
// once, without a new call, until it returns. It never has more than
// maxStuck calls out in all. A caller waits at most its context's deadline
// or the timeout it passes, whichever is sooner.
type Prober struct {
	stat   func(path string, st *unix.Stat_t) error
	statfs func(path string, st *unix.Statfs_t) error

	mu  sync.Mutex
	out map[string]*call // kind and path -> the call out
}

// call is one stat or statfs out; v and err are set before done closes.
type call struct {
	done  chan struct{}
	v     any
	err   error
	stuck bool // a caller gave up on it: later callers do not wait
	waits int  // callers that waited for it
}

// maxStuck bounds the calls left out at once: one per data directory and
// per mount the facts can name.
const maxStuck = MaxDataDirs + MaxMounts

// ErrStuck: an earlier probe of the path has not returned.
var ErrStuck = errors.New("an earlier stat/statfs of it has not returned (hung mount?); skipped until it does")

// errTooManyStuck: maxStuck probes are out.
var errTooManyStuck = fmt.Errorf("%d stat/statfs calls are still out (hung mounts?); no new one until they return", maxStuck)

// NewProber probes the real filesystem. Tests give their own stat and statfs.
func NewProber(stat func(string, *unix.Stat_t) error, statfs func(string, *unix.Statfs_t) error) *Prober {
	if stat == nil {
		stat = func(p string, st *unix.Stat_t) error { return unix.Stat(p, st) }
	}
	if statfs == nil {
		statfs = unix.Statfs
	}
	return &Prober{stat: stat, statfs: statfs, out: map[string]*call{}}
}

// shared is the Prober of Options without one: the mount table is the
// process's, so the exporter's endpoint and its host collector share what
// they know of stuck paths.
var shared = NewProber(nil, nil)

// Out is how many calls are out (each holds a thread while it blocks).
func (p *Prober) Out() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.out)
}

// Stat resolves path's symbolic links and stats the result.
func (p *Prober) Stat(ctx context.Context, timeout time.Duration, path string) (string, unix.Stat_t, error) {
	type stat struct {
		real string
		st   unix.Stat_t
	}
	r, err := probe(p, ctx, timeout, "stat", path, func() (stat, error) {
		var s stat
		r, err := filepath.EvalSymlinks(path)
		if err != nil {
			return s, err
		}
		s.real = r
		return s, p.stat(r, &s.st)
	})
	return r.real, r.st, err
}

// Statfs is statfs(2) of path.
func (p *Prober) Statfs(ctx context.Context, timeout time.Duration, path string) (unix.Statfs_t, error) {
	return probe(p, ctx, timeout, "statfs", path, func() (unix.Statfs_t, error) {
		var st unix.Statfs_t
		return st, p.statfs(path, &st)
	})
}

// probe runs f for path in its own goroutine unless a call of this kind
// for path is out, and waits for it until ctx ends or timeout passes.
// What f returns reaches callers only through the call, so a call given
// up on writes nothing a caller reads.
func probe[T any](p *Prober, ctx context.Context, timeout time.Duration, kind, path string, f func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	key := kind + "\x00" + path
	p.mu.Lock()
	c := p.out[key]
	switch {
	case c != nil && c.stuck:
		p.mu.Unlock()
		return zero, ErrStuck
	case c == nil && len(p.out) >= maxStuck:
		p.mu.Unlock()
		return zero, errTooManyStuck
	case c == nil:
		c = &call{done: make(chan struct{})}
		p.out[key] = c
		go func() {
			v, err := f()
			p.mu.Lock()
			c.v, c.err = v, err
			delete(p.out, key)
			p.mu.Unlock()
			close(c.done)
		}()
	}
	c.waits++
	p.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	var err error
	select {
	case <-c.done:
		if c.err != nil {
			return zero, c.err
		}
		return c.v.(T), nil
	case <-t.C:
		err = fmt.Errorf("%s did not return within %s (hung mount?)", kind, timeout)
	case <-ctx.Done():
		err = fmt.Errorf("%s: gave up at the request's deadline (hung mount?): %w", kind, ctx.Err())
	}
	p.mu.Lock()
	c.stuck = true
	p.mu.Unlock()
	return zero, err
}
