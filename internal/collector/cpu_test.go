package collector

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/golden"
)

// TestCPUCollector: per-core seconds by mode from a /proc/stat fixture
// (USER_HZ 100: 9942 ticks of softirq on cpu1 are 99.42 s).
func TestCPUCollector(t *testing.T) {
	c, err := newCPUCollector(Env{Paths: Paths{ProcFS: "testdata/cpu/proc", SysFS: t.TempDir()}})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, out, `walab_cpu_seconds_total{cpu="1",mode="softirq"} 99.42`)
	golden.Assert(t, filepath.Join("testdata", "cpu", "metrics.golden"), []byte(out))
}

// TestCPUCollectorBrokenStat: a missing or garbled /proc/stat fails the
// collector with the file named, never a panic or a made-up number.
func TestCPUCollectorBrokenStat(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte("cpu0 x y\n"), 0o644))
	c, err := newCPUCollector(Env{Paths: Paths{ProcFS: dir}})
	require.NoError(t, err)
	_, err = hostScrape(t, c)
	require.ErrorContains(t, err, "stat")
	require.NoError(t, os.Remove(filepath.Join(dir, "stat")))
	_, err = hostScrape(t, c)
	require.ErrorContains(t, err, "stat")
}
