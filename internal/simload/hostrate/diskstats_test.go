package hostrate

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseDiskstats(t *testing.T) {
	b, err := os.ReadFile("testdata/diskstats")
	require.NoError(t, err)
	for _, tc := range []struct {
		dev    string
		want   uint64
		errSub string
	}{
		{"nvme0n1", 800000, ""},
		{"nvme0n1p1", 320, ""},
		{"sda", 16, ""},
		{"nvme1n1", 0, "no device"},
	} {
		got, err := ParseDiskstats(b, tc.dev)
		if tc.errSub != "" {
			require.ErrorContains(t, err, tc.errSub)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got, tc.dev)
	}
	_, err = ParseDiskstats([]byte(" 8 0 sda 1 2 3\n"), "sda")
	require.ErrorContains(t, err, "fields")
	_, err = ParseDiskstats([]byte(" 8 0 sda 1 2 3 4 5 6 -7 8 0 0 0\n"), "sda")
	require.ErrorContains(t, err, "column 10")
}

func FuzzParseDiskstats(f *testing.F) {
	b, err := os.ReadFile("testdata/diskstats")
	require.NoError(f, err)
	f.Add(b, "nvme0n1")
	f.Add([]byte(" 8 0 sda 1\n"), "sda")
	f.Fuzz(func(t *testing.T, data []byte, dev string) {
		_, _ = ParseDiskstats(data, dev)
	})
}

// TestDiskstatsRate rewrites a fixture diskstats between steps, as the
// kernel's counters move under a running database.
func TestDiskstatsDelta(t *testing.T) {
	dir := t.TempDir()
	write := func(sectors uint64) {
		line := " 259 0 nvme0n1 1 0 8 1 1 0 " + strconv.FormatUint(sectors, 10) + " 1 0 1 1\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "diskstats"), []byte(line), 0o644))
	}
	d, err := NewDiskstats(dir, "nvme0n1")
	require.NoError(t, err)
	_, err = d.Delta()
	require.Error(t, err, "file missing")
	for _, step := range []struct {
		sectors, want uint64
	}{
		{1000, 0},          // baseline
		{1000, 0},          // idle
		{3000, 2000 * 512}, // 1 MB written
		{10, 0},            // counter reset: new baseline
		{20, 10 * 512},
	} {
		write(step.sectors)
		got, err := d.Delta()
		require.NoError(t, err)
		require.Equal(t, step.want, got, "sectors %d", step.sectors)
	}
	for _, bad := range []string{"", "a/b", "nvme0n1 x"} {
		_, err := NewDiskstats(dir, bad)
		require.Error(t, err, bad)
	}
}
