package drivetable

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/fingerprint"
)

func gb(x float64) *float64 { v := x * GiB; return &v }

func drive(dev, serial string, host, nand *float64) fingerprint.Drive {
	return fingerprint.Drive{Device: dev, Serial: serial, Source: "ocp_c0", HostWrittenBytes: host, MediaWrittenBytes: nand, Arrays: []string{"md0"}}
}

// TestSeed001Table: seed 001's table of the drives under its RAID 5, host
// and NAND GiB at the start and end of the run and the WA between. A drive
// without a NAND counter (PBlaze4 in its older log format), one replaced
// during the run and one gone at the end have no delta and no WA, each
// with its reason: never 0.
func TestSeed001Table(t *testing.T) {
	start := []fingerprint.Drive{
		drive("nvme1", "S1", gb(38260), nil),
		drive("nvme0", "S0", gb(44470), gb(65944)),
		drive("nvme2", "S2", gb(48340), gb(65364)),
		drive("nvme3", "S3", gb(35975), gb(56344)),
	}
	end := []fingerprint.Drive{
		drive("nvme0", "S0", gb(44970), gb(66744)),
		drive("nvme1", "S1", gb(38877), nil),
		drive("nvme2", "S9", gb(10), gb(12)),
	}
	rows := Rows(start, end)
	require.Len(t, rows, 4)
	require.Equal(t, "nvme0", rows[0].Device, "device order")
	require.InDelta(t, 500*GiB, *rows[0].HostBytes(), 1e-3)
	require.InDelta(t, 1.6, *rows[0].WA(), 1e-12)
	require.NotNil(t, rows[1].HostBytes(), "host bytes are known without NAND")
	require.Nil(t, rows[1].NANDBytes())
	require.Nil(t, rows[1].WA())
	require.Nil(t, rows[2].HostBytes(), "another drive: no delta")
	require.Contains(t, rows[2].Note, "serial changed (S2 → S9)")
	require.Equal(t, "not in the end fingerprint", rows[3].Note)
	require.Nil(t, rows[3].HostEnd)

	md := Markdown(rows)
	t.Log("\n" + md)
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	require.Len(t, lines, 6)
	require.Equal(t, "| nvme0 | S0 | md0 | 44470.000 | 44970.000 | 500.000 | 65944.000 | 66744.000 | 800.000 | 1.600 |  |", lines[2])
	require.Equal(t, "| nvme1 | S1 | md0 | 38260.000 | 38877.000 | 617.000 | — | — | — | — |  |", lines[3])
	require.Equal(t, "| nvme3 | S3 | md0 | 35975.000 | — | — | 56344.000 | — | — | — | not in the end fingerprint |", lines[5])
	require.Empty(t, Markdown(nil))
}

// TestIdleAndReset: a drive the host did not write has no WA (not 0 or
// infinite); a counter that went backwards (a reset) has no delta.
func TestIdleAndReset(t *testing.T) {
	rows := Rows([]fingerprint.Drive{drive("nvme0", "S", gb(5), gb(9)), drive("nvme1", "S1", gb(5), gb(9))},
		[]fingerprint.Drive{drive("nvme0", "S", gb(5), gb(9.5)), drive("nvme1", "S1", gb(4), gb(10))})
	require.Equal(t, 0.0, *rows[0].HostBytes())
	require.Nil(t, rows[0].WA())
	require.Nil(t, rows[1].HostBytes())
	require.Nil(t, rows[1].WA())
}

// TestLabelsStayInTheirCell: a serial with a pipe or a line break from
// the exporter cannot add a column or a row.
func TestLabelsStayInTheirCell(t *testing.T) {
	md := Markdown(Rows(nil, []fingerprint.Drive{{Device: "nvme0", Serial: "a|b\n| x |"}}))
	require.Contains(t, md, `| nvme0 | a\|b \| x \| |`)
	require.Equal(t, 3, strings.Count(md, "\n"))
}
