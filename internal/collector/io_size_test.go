package collector

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvmetrace"
	"github.com/walab/walab/internal/testenv"
)

// TestIOSizeWithoutTracefs: where tracing is impossible the collector
// says why, never fails the scrape and publishes no histogram (absent, not
// a histogram of zeros).
func TestIOSizeWithoutTracefs(t *testing.T) {
	c, err := newIOSizeCollector(Env{Paths: Paths{SysFS: t.TempDir()}, Config: hostConfig(t, "")})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, out, "walab_io_size_trace_up 0")
	require.Contains(t, out, `walab_io_size_trace_error_info{reason="no_tracefs"} 1`)
	require.NotContains(t, out, "walab_blockdev_io_size_bytes")
	_, err = newIOSizeCollector(Env{Config: hostConfig(t, "io_size:\n  tracfs: /x\n")})
	require.ErrorContains(t, err, "tracfs")
}

// counted is the io_size collector with its tracer's counts given.
type counted struct {
	c      *ioSizeCollector
	counts []nvmetrace.IOSizeCount
}

func (e counted) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	e.c.emit(ch, e.counts)
	return nil
}

// TestIOSizeHistogram: the tracer's counts as one histogram per device and
// operation, seed 001's profile: 16 KiB reads, writes from 512 B to 512
// KiB, a 4 MiB discard in +Inf. Buckets are cumulative, the sum is the
// bytes, the device is named from sysfs (a dev_t sysfs does not know keeps
// MAJ:MIN; I/Os of dev_t 0 are no device's), and promtool
// check metrics finds nothing to lint.
func TestIOSizeHistogram(t *testing.T) {
	sys := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(sys, "dev", "block"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(sys, "devices", "pci0000:00", "0000:00:04.0", "nvme", "nvme0", "nvme0n1"), 0o755))
	require.NoError(t, os.Symlink("../../devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", filepath.Join(sys, "dev", "block", "259:0")))
	c, err := newIOSizeCollector(Env{Paths: Paths{SysFS: sys}, Config: hostConfig(t, "")})
	require.NoError(t, err)
	nvme := uint32(259 << 20)
	gone := uint32(8<<20 | 16)
	counts := []nvmetrace.IOSizeCount{
		{IOSizeKey: nvmetrace.IOSizeKey{Dev: nvme, Op: 'R', Bucket: 5}, Bios: 100, Bytes: 100 * 16384},
		{IOSizeKey: nvmetrace.IOSizeKey{Dev: nvme, Op: 'W', Bucket: 0}, Bios: 10, Bytes: 10 * 512},
		{IOSizeKey: nvmetrace.IOSizeKey{Dev: nvme, Op: 'W', Bucket: 5}, Bios: 60, Bytes: 60 * 16384},
		{IOSizeKey: nvmetrace.IOSizeKey{Dev: nvme, Op: 'W', Bucket: 10}, Bios: 2, Bytes: 2 * 524288},
		{IOSizeKey: nvmetrace.IOSizeKey{Dev: nvme, Op: 'D', Bucket: 12}, Bios: 1, Bytes: 4 << 20},
		{IOSizeKey: nvmetrace.IOSizeKey{Dev: gone, Op: 'N', Bucket: 3}, Bios: 7, Bytes: 7 * 4096},
		{IOSizeKey: nvmetrace.IOSizeKey{Dev: 0, Op: 'N', Bucket: 0}, Bios: 3, Bytes: 3 * 512},
	}
	out, err := hostScrape(t, counted{c.(*ioSizeCollector), counts})
	require.NoError(t, err)
	t.Log(out)
	for _, line := range []string{
		`walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="read",le="8192"} 0`,
		`walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="read",le="16384"} 100`,
		`walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="read",le="+Inf"} 100`,
		`walab_blockdev_io_size_bytes_sum{device="nvme0n1",op="read"} 1.6384e+06`,
		`walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="write",le="512"} 10`,
		`walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="write",le="16384"} 70`,
		`walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="write",le="262144"} 70`,
		`walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="write",le="524288"} 72`,
		`walab_blockdev_io_size_bytes_count{device="nvme0n1",op="write"} 72`,
		`walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="discard",le="1.048576e+06"} 0`,
		`walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="discard",le="+Inf"} 1`,
		`walab_blockdev_io_size_bytes_bucket{device="8:16",op="other",le="4096"} 7`,
		"walab_io_size_trace_up 1",
		"walab_io_size_trace_keys 7",
	} {
		require.Contains(t, out, line+"\n")
	}
	require.Equal(t, 4*13, strings.Count(out, "walab_blockdev_io_size_bytes_bucket{"), "13 buckets for each of 4 histograms: none for dev_t 0")

	promtoolClean(t, out)
}

// promtoolClean: promtool check metrics finds nothing to lint in out.
func promtoolClean(t *testing.T, out string) {
	t.Helper()
	promtool := testenv.RequireBinary(t, "promtool")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(out)
	lint, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", lint)
	require.Empty(t, strings.TrimSpace(string(lint)), "promtool check metrics findings")
}
