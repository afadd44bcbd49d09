package blockdev

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Lines as three kernel generations print them (iostats.rst): 14 columns
// before 4.18, 18 with discards, 20 with flushes.
const sample = `   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 259       0 nvme0n1 5310 120 424480 1532 88214 9021 14336512 40213 2 61020 41833 12 0 2048 3 410 95
 259       1 nvme0n1p1 5200 120 423000 1500 88000 9000 14330000 40100 0 60900 41700 12 0 2048 3
   9       0 md0 9 0 72 0 44107 0 7168256 0 0 0 0
`

func TestParseDiskstatsKernelGenerations(t *testing.T) {
	stats, errs := ParseDiskstats([]byte(sample))
	require.Empty(t, errs)
	require.Len(t, stats, 4)
	ns := stats[1]
	require.Equal(t, Stat{Major: 259, Minor: 0, Name: "nvme0n1",
		ReadIOs: 5310, ReadMerges: 120, ReadSectors: 424480, ReadTicks: 1532,
		WriteIOs: 88214, WriteMerges: 9021, WriteSectors: 14336512, WriteTicks: 40213,
		InFlight: 2, IOTicks: 61020, TimeInQueue: 41833,
		HasDiscard: true, DiscardIOs: 12, DiscardSectors: 2048, DiscardTicks: 3,
		HasFlush: true, FlushIOs: 410, FlushTicks: 95}, ns)
	require.True(t, stats[2].HasDiscard)
	require.False(t, stats[2].HasFlush, "an 18-column kernel has no flush counters: absent, not 0")
	require.False(t, stats[3].HasDiscard)
	require.Equal(t, uint64(7168256), stats[3].WriteSectors)
}

// TestBadLineCostsThatLine: a truncated, garbled or duplicated line is an
// error naming it, and every other device is still read.
func TestBadLineCostsThatLine(t *testing.T) {
	in := strings.Join([]string{
		" 259 0 nvme0n1 1 0 8 0 2 0 16 0 0 0 0",
		" 259 1 nvme1n1 1 0 8 0 2 0 16", // truncated
		" 259 2 nvme2n1 1 0 8 0 x 0 16 0 0 0 0",
		" 259 3 nvme3n1 1 0 8 0 2 0 16 0 0 0 0 0 0 0 0 0 0 0 0 0 0", // 21 fields
		" 259 0 nvme0n1 1 0 8 0 2 0 16 0 0 0 0",                     // twice
		" 259 4 nvme4n1 -1 0 8 0 2 0 16 0 0 0 0",
		"",
		" 259 5 nvme5n1 3 0 24 1 4 0 32 1 0 2 2",
	}, "\n")
	stats, errs := ParseDiskstats([]byte(in))
	var names []string
	for _, s := range stats {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"nvme0n1", "nvme5n1"}, names)
	require.Len(t, errs, 5)
	require.ErrorContains(t, errs[0], "line 2")
	require.ErrorContains(t, errs[0], "10 fields")
	require.ErrorContains(t, errs[1], `"x"`)
	require.ErrorContains(t, errs[2], "24 fields")
	require.ErrorContains(t, errs[3], "already has a line")
	require.ErrorContains(t, errs[4], "line 6")
}

func TestParseDiskstatsRefusesPathNames(t *testing.T) {
	_, errs := ParseDiskstats([]byte(" 8 0 ../etc 1 0 8 0 2 0 16 0 0 0 0\n"))
	require.Len(t, errs, 1)
	require.ErrorContains(t, errs[0], "device name")
}

// FuzzParseDiskstats: any input gives lines or line errors, never a panic;
// every returned device has a printable name and appears once.
func FuzzParseDiskstats(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(" 259 0 nvme0n1 1 0 8 0 2 0 16 0 0 0 0"))
	f.Add([]byte("1 2 a 18446744073709551615 0 0 0 0 0 0 0 0 0 0\n\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		stats, errs := ParseDiskstats(data)
		seen := map[string]bool{}
		for _, s := range stats {
			if !validName(s.Name) || seen[s.Name] {
				t.Fatalf("device %q returned (twice: %v)", s.Name, seen[s.Name])
			}
			seen[s.Name] = true
		}
		lines := strings.Count(string(data), "\n") + 1
		if len(stats)+len(errs) > lines {
			t.Fatalf("%d results from %d lines", len(stats)+len(errs), lines)
		}
	})
}
