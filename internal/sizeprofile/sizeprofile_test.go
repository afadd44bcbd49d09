package sizeprofile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/fingerprint"
)

var bounds = []float64{4096, 16384, 1 << 20}

func hist(dev, op string, cum []uint64, count uint64, bytes float64) fingerprint.IOSize {
	return fingerprint.IOSize{Device: dev, Op: op, Bounds: bounds, Buckets: cum, Count: count, Bytes: bytes}
}

// TestSeed001Profile: the requests of the run are end - start per bucket:
// nvme0n1's reads all 16 KiB; its writes mostly 16 KiB, some 4 KiB and
// one of 4 MiB (mean (20 x 4 + 160 x 16 + 4096) KiB / 181 = 37.2 KiB); nvme1n1's writes started during the run (no series at
// the start, while the tracer ran: counted from zero); nvme2n1 had no
// read during the run (no line).
func TestSeed001Profile(t *testing.T) {
	start := []fingerprint.IOSize{
		hist("nvme0n1", "read", []uint64{0, 100, 100}, 100, 100*16384),
		hist("nvme0n1", "write", []uint64{10, 50, 50}, 50, 10*4096+40*16384),
		hist("nvme2n1", "read", []uint64{1, 1, 1}, 1, 4096),
	}
	end := []fingerprint.IOSize{
		hist("nvme2n1", "read", []uint64{1, 1, 1}, 1, 4096),
		hist("nvme0n1", "write", []uint64{30, 230, 230}, 231, 30*4096+200*16384+4<<20),
		hist("nvme0n1", "read", []uint64{0, 900, 900}, 900, 900*16384),
		hist("nvme1n1", "write", []uint64{4, 4, 4}, 4, 4*4096),
	}
	rows := Rows(start, end)
	require.Len(t, rows, 4)
	require.Equal(t, Row{Device: "nvme0n1", Op: "read", IOs: 800, Bytes: 800 * 16384, Bounds: bounds, Buckets: []uint64{0, 800, 0, 0}}, rows[0])
	require.Equal(t, []uint64{20, 160, 0, 1}, rows[1].Buckets)
	require.Equal(t, uint64(4), rows[2].IOs, "a series new at the end counts from zero")
	md := Markdown(rows)
	t.Log("\n" + md)
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	require.Equal(t, []string{
		"| nvme0n1 | read | 800 | 16 KiB | 16 KiB 100.0% |  |",
		"| nvme0n1 | write | 181 | 37.2 KiB | 4 KiB 11.0%, 16 KiB 88.4%, > 1 MiB 0.6% |  |",
		"| nvme1n1 | write | 4 | 4 KiB | 4 KiB 100.0% |  |",
	}, lines[2:], "nvme2n1 had no read during the run")
}

// TestUnknownProfiles: no histogram at the start, different buckets and
// counts that went backwards give no figures, each with its reason.
func TestUnknownProfiles(t *testing.T) {
	e := hist("vda", "write", []uint64{1, 2, 3}, 3, 100)
	rows := Rows(nil, []fingerprint.IOSize{e})
	require.Contains(t, rows[0].Note, "no I/O-size histogram at the run's start")
	require.Zero(t, rows[0].IOs)
	other := e
	other.Bounds = []float64{512, 16384, 1 << 20}
	require.Contains(t, Rows([]fingerprint.IOSize{other}, []fingerprint.IOSize{e})[0].Note, "buckets differ")
	later := hist("vda", "write", []uint64{5, 6, 7}, 7, 900)
	r := Rows([]fingerprint.IOSize{later}, []fingerprint.IOSize{e})[0]
	require.Contains(t, r.Note, "exporter restarted")
	require.Zero(t, r.IOs)
	require.Contains(t, Markdown([]Row{r}), "| vda | write | — | — | — | counts went backwards")
	require.Empty(t, Markdown(nil))
}
