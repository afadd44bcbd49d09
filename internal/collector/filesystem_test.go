package collector

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestFilesystemGolden(t *testing.T) {
	c, err := newFilesystemCollector(Env{Logger: slog.New(slog.DiscardHandler), Config: hostConfig(t, "filesystem:\n  paths: [/data/mysql1, /data/mysql2]\n")})
	require.NoError(t, err)
	// Fixed statfs answers so the golden file is stable: a 1 TiB ext4 at
	// 65% with 5% reserved, and an xfs with Frsize 0 (falls back to Bsize).
	c.(*filesystemCollector).statfs = func(p string, st *unix.Statfs_t) error {
		switch p {
		case "/data/mysql1":
			*st = unix.Statfs_t{Bsize: 4096, Frsize: 4096, Blocks: 268435456, Bfree: 93952409, Bavail: 80530637}
		case "/data/mysql2":
			*st = unix.Statfs_t{Bsize: 4096, Blocks: 1000, Bfree: 100, Bavail: 100}
		}
		return nil
	}
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	hostGolden(t, "filesystem/golden.prom", got)
}

func TestFilesystemRealStatfs(t *testing.T) {
	dir := t.TempDir()
	c, err := newFilesystemCollector(Env{Logger: slog.New(slog.DiscardHandler), Config: hostConfig(t, "filesystem:\n  paths: ["+dir+"]\n")})
	require.NoError(t, err)
	var st unix.Statfs_t
	require.NoError(t, unix.Statfs(dir, &st))
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	// Used and available move as other processes write; the size does not.
	size := st.Blocks * uint64(st.Frsize)
	require.Equal(t, float64(size), hostValue(t, got, `walab_filesystem_size_bytes{path="`+dir+`"}`))
	used := hostValue(t, got, `walab_filesystem_used_bytes{path="`+dir+`"}`)
	avail := hostValue(t, got, `walab_filesystem_avail_bytes{path="`+dir+`"}`)
	require.Positive(t, used)
	require.LessOrEqual(t, used+avail, float64(size))
}

// hostValue finds one series in exposition text and parses its value.
func hostValue(t *testing.T, text, series string) float64 {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err)
			return f
		}
	}
	require.Failf(t, "series not found", "%s in\n%s", series, text)
	return 0
}

func TestFilesystemVanishedPath(t *testing.T) {
	keep, gone := t.TempDir(), filepath.Join(t.TempDir(), "datadir")
	require.NoError(t, os.Mkdir(gone, 0o755))
	var logs bytes.Buffer
	c, err := newFilesystemCollector(Env{
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Config: hostConfig(t, "filesystem:\n  paths: ["+keep+", "+gone+"]\n"),
	})
	require.NoError(t, err)
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, got, `path="`+gone+`"`)

	require.NoError(t, os.Remove(gone))
	for range 3 {
		got, err = hostScrape(t, c)
		require.NoError(t, err)
		require.NotContains(t, got, `path="`+gone+`"`)
		require.Contains(t, got, `walab_filesystem_size_bytes{path="`+keep+`"}`)
	}
	require.Equal(t, 1, strings.Count(logs.String(), "filesystem path unavailable"), logs.String())
	require.Contains(t, logs.String(), syscall.ENOENT.Error())

	require.NoError(t, os.Mkdir(gone, 0o755))
	got, err = hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, got, `walab_filesystem_size_bytes{path="`+gone+`"}`)
	require.Equal(t, 1, strings.Count(logs.String(), "available again"))
}

func TestFilesystemConfig(t *testing.T) {
	for _, tc := range []struct{ name, yml, err string }{
		{"relative", "filesystem:\n  paths: [data]\n", "not absolute"},
		{"duplicate", "filesystem:\n  paths: [/a, /a]\n", "twice"},
		{"unknown key", "filesystem:\n  path: [/a]\n", "path"},
		{"negative timeout", "filesystem:\n  statfs_timeout: -1s\n", "statfs_timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newFilesystemCollector(Env{Config: hostConfig(t, tc.yml)})
			require.ErrorContains(t, err, tc.err)
		})
	}
	c, err := newFilesystemCollector(Env{Config: hostConfig(t, "")})
	require.NoError(t, err)
	_, err = hostScrape(t, c)
	require.ErrorIs(t, err, ErrNoData)
}

// BenchmarkFilesystemUpdate: 64 configured paths, real statfs each.
func BenchmarkFilesystemUpdate(b *testing.B) {
	var yml strings.Builder
	yml.WriteString("filesystem:\n  paths:\n")
	for range 64 {
		yml.WriteString("    - " + b.TempDir() + "\n")
	}
	c, err := newFilesystemCollector(Env{Logger: slog.New(slog.DiscardHandler), Config: hostConfig(b, yml.String())})
	require.NoError(b, err)
	hostBench(b, func() { hostSeries(b, c) })
}

// TestFilesystemHungMount: a statfs that does not return is abandoned after
// the timeout, the path is skipped (no second call piles up) while the
// others are served, and it comes back once the call returns.
func TestFilesystemHungMount(t *testing.T) {
	var logs bytes.Buffer
	c, err := newFilesystemCollector(Env{
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Config: hostConfig(t, "filesystem:\n  paths: [/ok, /nfs]\n  statfs_timeout: 1s\n"),
	})
	require.NoError(t, err)
	release := make(chan struct{})
	var calls atomic.Int32
	c.(*filesystemCollector).statfs = func(p string, st *unix.Statfs_t) error {
		if p == "/nfs" {
			calls.Add(1)
			<-release
		}
		*st = unix.Statfs_t{Bsize: 4096, Frsize: 4096, Blocks: 10, Bfree: 5, Bavail: 5}
		return nil
	}
	for range 3 {
		got, err := hostScrape(t, c)
		require.NoError(t, err)
		require.Contains(t, got, `walab_filesystem_size_bytes{path="/ok"} 40960`)
		require.NotContains(t, got, `path="/nfs"`)
	}
	require.Equal(t, int32(1), calls.Load(), "a stuck path is not called again")
	require.Equal(t, 1, strings.Count(logs.String(), "hung mount"))

	close(release)
	require.Eventually(t, func() bool {
		got, err := hostScrape(t, c)
		return err == nil && strings.Contains(got, `walab_filesystem_size_bytes{path="/nfs"} 40960`)
	}, 10*time.Second, 10*time.Millisecond)
}
