package collector

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlacementTraceWithoutTracefs: where tracing is impossible the
// collector says why (a metric and one log line), never fails the scrape
// and never publishes a command count.
func TestPlacementTraceWithoutTracefs(t *testing.T) {
	c, err := newPlacementTraceCollector(Env{Paths: Paths{SysFS: t.TempDir()}, Config: hostConfig(t, "")})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, out, "walab_placement_trace_up 0")
	require.Contains(t, out, `walab_placement_trace_error_info{reason="no_tracefs"} 1`)
	require.NotContains(t, out, "walab_nvme_write_commands_total")

	_, err = newPlacementTraceCollector(Env{Config: hostConfig(t, "placement_trace:\n  max_placement_ids: -2\n")})
	require.ErrorContains(t, err, "must be positive")
	_, err = newPlacementTraceCollector(Env{Config: hostConfig(t, "placement_trace:\n  tracfs: /x\n")})
	require.ErrorContains(t, err, "tracfs")
}

// TestPlacementIDFold: the first max_placement_ids ids of a device and
// directive keep their series for good; later ones fold into "other", so
// a series never changes meaning.
func TestPlacementIDFold(t *testing.T) {
	c, err := newPlacementTraceCollector(Env{Config: hostConfig(t, "placement_trace:\n  max_placement_ids: 2\n")})
	require.NoError(t, err)
	pc := c.(*placementTraceCollector)
	var got []string
	for _, id := range []uint16{9, 3, 1, 9, 3, 7} {
		got = append(got, pc.idLabel("nvme0/data_placement", id))
	}
	require.Equal(t, "9 3 other 9 3 other", strings.Join(got, " "))
	require.Equal(t, "1", pc.idLabel("nvme1/data_placement", 1), "each device has its own ids")
	require.Equal(t, "type_7", directiveLabel(7))
}

type fakeSim []PlacedWrite

func (f fakeSim) PlacedWrites() []PlacedWrite { return f }

// TestPlacementTraceHelpNamesSimulator: on the simulated drive the write
// commands are the simulator's own count, nothing is traced; the series'
// HELP said only "counted per command by a BPF program ... proof, not
// inference". It now names both sources, and how to tell them apart.
func TestPlacementTraceHelpNamesSimulator(t *testing.T) {
	c, err := newPlacementTraceCollector(Env{Paths: Paths{SysFS: t.TempDir()}, Config: hostConfig(t, ""),
		PlacedWriters: map[string]PlacedWriter{"nvmesim0": fakeSim{{Stream: 1, Commands: 2, Bytes: 8192}}}})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, out, `walab_nvme_write_commands_total{device="nvmesim0",directive="streams",placement_id="1"} 2`)
	for _, name := range []string{"walab_nvme_write_commands_total", "walab_nvme_write_bytes_total"} {
		var help string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "# HELP "+name+" ") {
				help = line
			}
		}
		require.Contains(t, help, `simulated="true"`, name)
		require.Contains(t, help, "the simulator's own count", name)
	}
}
