package writehint

import (
	"context"
	"sync"
	"time"
)

// Cache re-walks a directory at most once per TTL; scrapes in between get
// the last result. Concurrent callers share one walk.
type Cache struct {
	Root     string
	MaxFiles int
	TTL      time.Duration
	Now      func() time.Time // nil: time.Now

	mu   sync.Mutex
	at   time.Time
	last Result
	err  error
	have bool
}

// Get returns a result no older than TTL.
func (c *Cache) Get(ctx context.Context) (Result, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.have && now().Sub(c.at) < c.TTL {
		return c.last, c.err
	}
	res, err := Scan(ctx, c.Root, c.MaxFiles)
	if ctx.Err() != nil {
		return res, err // a cancelled walk is not cached
	}
	c.last, c.err, c.at, c.have = res, err, now(), true
	return res, err
}
