package collector

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/walab/walab/internal/promql"
	"golang.org/x/sys/unix"
)

// filesystemConfig is the `filesystem:` section: mount points or data
// directories whose fill level matters (seed 000 pre-fills the drive to
// 60-70% and watches it pass 90%).
type filesystemConfig struct {
	Paths []string `yaml:"paths"`
	// StatfsTimeout bounds one statfs; a path that exceeds it (a hung
	// mount) is skipped until that call returns. Default 5s.
	StatfsTimeout time.Duration `yaml:"statfs_timeout"`
}

const defaultStatfsTimeout = 5 * time.Second

var (
	fsSizeDesc = prometheus.NewDesc(promql.FilesystemSize,
		"Size of the filesystem holding the configured path (statfs blocks x fragment size).", []string{"path"}, nil)
	fsUsedDesc = prometheus.NewDesc(promql.FilesystemUsed,
		"Bytes in use on the filesystem holding the path (size minus free, as df counts it).", []string{"path"}, nil)
	fsAvailDesc = prometheus.NewDesc(Namespace+"_filesystem_avail_bytes",
		"Bytes available to unprivileged users on the filesystem holding the path (excludes root-reserved blocks).", []string{"path"}, nil)
)

type filesystemCollector struct {
	logger  *slog.Logger
	paths   []string
	statfs  func(string, *unix.Statfs_t) error
	timeout time.Duration

	mu     sync.Mutex
	failed map[string]string // path -> last error text, to log once per state change
	stuck  map[string]bool   // path -> a statfs is still running past its timeout
}

type statfsResult struct {
	st  unix.Statfs_t
	err error
}

var errStatfsStuck = errors.New("statfs did not return in time (hung mount?); skipped until it does")

func init() { Register("filesystem", true, newFilesystemCollector) }

// absolute refuses a relative path.
func absolute(p string) error {
	if !filepath.IsAbs(p) {
		return errors.New("not absolute")
	}
	return nil
}

func (c *filesystemConfig) complete() error {
	return cmp.Or(checkList("filesystem", "path", c.Paths, absolute),
		orDefault(&c.StatfsTimeout, defaultStatfsTimeout, "filesystem", "statfs_timeout"))
}

func newFilesystemCollector(env Env) (Collector, error) {
	var cfg filesystemConfig
	if err := decodeSection(env.Config, "filesystem", &cfg); err != nil {
		return nil, err
	}
	return &filesystemCollector{logger: env.log(), paths: cfg.Paths, statfs: unix.Statfs, timeout: cfg.StatfsTimeout,
		failed: map[string]string{}, stuck: map[string]bool{}}, nil
}

func (c *filesystemCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	if len(c.paths) == 0 {
		return ErrNoData
	}
	for _, p := range c.paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := c.statfsBounded(ctx, p)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		c.noteState(p, err)
		if err != nil {
			continue // a vanished path loses its series; the others are still served
		}
		bs := uint64(st.Frsize)
		if bs == 0 {
			bs = uint64(st.Bsize)
		}
		size := st.Blocks * bs
		used := (st.Blocks - min(st.Bfree, st.Blocks)) * bs
		ch <- prometheus.MustNewConstMetric(fsSizeDesc, prometheus.GaugeValue, float64(size), p)
		ch <- prometheus.MustNewConstMetric(fsUsedDesc, prometheus.GaugeValue, float64(used), p)
		ch <- prometheus.MustNewConstMetric(fsAvailDesc, prometheus.GaugeValue, float64(st.Bavail*bs), p)
	}
	return nil
}

// statfsBounded runs statfs with a timeout, as node_exporter does for
// mount points: one hung mount must not hold the whole scrape. The call is
// left running; until it returns, the path is skipped without a new call.
func (c *filesystemCollector) statfsBounded(ctx context.Context, p string) (unix.Statfs_t, error) {
	c.mu.Lock()
	if c.stuck[p] {
		c.mu.Unlock()
		return unix.Statfs_t{}, errStatfsStuck
	}
	c.mu.Unlock()
	done := make(chan statfsResult, 1)
	go func() {
		var r statfsResult
		r.err = c.statfs(p, &r.st)
		done <- r // buffered: never blocks, even when nobody waits any more
		// Only after the send: the waiter checks done under the lock
		// before it marks the path stuck, so this delete always follows.
		c.mu.Lock()
		delete(c.stuck, p)
		c.mu.Unlock()
	}()
	t := time.NewTimer(c.timeout)
	defer t.Stop()
	select {
	case r := <-done:
		return r.st, r.err
	case <-t.C:
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case r := <-done: // finished while we took the lock
		return r.st, r.err
	default:
	}
	c.stuck[p] = true
	if ctx.Err() != nil {
		return unix.Statfs_t{}, ctx.Err()
	}
	return unix.Statfs_t{}, errStatfsStuck
}

// noteState logs a path's error when it starts or changes, and its
// recovery, instead of once per scrape.
func (c *filesystemCollector) noteState(p string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev, wasFailed := c.failed[p]
	switch {
	case err != nil && (!wasFailed || prev != err.Error()):
		c.failed[p] = err.Error()
		c.logger.Warn("filesystem path unavailable; its metrics are absent until it returns", "path", p, "err", err)
	case err == nil && wasFailed:
		delete(c.failed, p)
		c.logger.Info("filesystem path available again", "path", p)
	}
}
