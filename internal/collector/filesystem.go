package collector

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"
)

// filesystemConfig is the `filesystem:` section: mount points or data
// directories whose fill level matters (seed 000 pre-fills the drive to
// 60-70% and watches it pass 90%).
type filesystemConfig struct {
	Paths []string `yaml:"paths"`
}

var (
	fsSizeDesc = prometheus.NewDesc(Namespace+"_filesystem_size_bytes",
		"Size of the filesystem holding the configured path (statfs blocks x fragment size).", []string{"path"}, nil)
	fsUsedDesc = prometheus.NewDesc(Namespace+"_filesystem_used_bytes",
		"Bytes in use on the filesystem holding the path (size minus free, as df counts it).", []string{"path"}, nil)
	fsAvailDesc = prometheus.NewDesc(Namespace+"_filesystem_avail_bytes",
		"Bytes available to unprivileged users on the filesystem holding the path (excludes root-reserved blocks).", []string{"path"}, nil)
)

type filesystemCollector struct {
	logger *slog.Logger
	paths  []string
	statfs func(string, *unix.Statfs_t) error

	mu     sync.Mutex
	failed map[string]string // path -> last error text, to log once per state change
}

func init() { Register("filesystem", true, newFilesystemCollector) }

func newFilesystemCollector(env Env) (Collector, error) {
	var cfg filesystemConfig
	if err := env.Config.Decode("filesystem", &cfg); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range cfg.Paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("filesystem: path %q is not absolute", p)
		}
		if seen[p] {
			return nil, fmt.Errorf("filesystem: path %q is listed twice", p)
		}
		seen[p] = true
	}
	if env.Logger == nil {
		env.Logger = slog.New(slog.DiscardHandler)
	}
	return &filesystemCollector{logger: env.Logger, paths: cfg.Paths, statfs: unix.Statfs, failed: map[string]string{}}, nil
}

func (c *filesystemCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	if len(c.paths) == 0 {
		return ErrNoData
	}
	for _, p := range c.paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		var st unix.Statfs_t
		err := c.statfs(p, &st)
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
