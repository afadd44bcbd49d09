package compare

import (
	"bytes"
	"image/png"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/golden"
)

func hours(was ...float64) []Hour {
	out := make([]Hour, len(was))
	for i, wa := range was {
		host := float64(0)
		if wa > 0 {
			host = 60 * MiB
		}
		out[i] = Hour{Hour: i + 1, HostBytes: host, NANDBytes: wa * host}
	}
	return out
}

func hourNumbers(hs []Hour) []int {
	var out []int
	for _, h := range hs {
		out = append(out, h.Hour)
	}
	return out
}

func TestLastNonZero(t *testing.T) {
	tests := []struct {
		name string
		in   []Hour
		n    int
		want []int // hour numbers
	}{
		{"fewer than n", hours(2, 2.5), 12, []int{1, 2}},
		{"skips idle hours", hours(2, 0, 2.5, 0, 3), 2, []int{3, 5}},
		{"last n", hours(1, 2, 3, 4), 3, []int{2, 3, 4}},
		{"all idle", hours(0, 0), 12, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for _, h := range LastNonZero(tt.in, tt.n) {
				got = append(got, h.Hour)
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestAggregateAndReduction(t *testing.T) {
	require.InDelta(t, 2.5, AggregateWA(hours(2.5, 2.5, 0)), 1e-12)
	// A missing hour's host bytes do not dilute the WA (they would make
	// 2.5 look like 1.25 here).
	missing := Hour{Hour: 4, HostBytes: 60 * MiB, Missing: "no NAND data"}
	require.InDelta(t, 2.5, AggregateWA(append(hours(2.5), missing)), 1e-12)
	require.False(t, missing.NonZero())
	require.Zero(t, missing.WA())
	require.Equal(t, []int{1}, hourNumbers(LastNonZero(append(hours(2.5), missing), 12)))
	// sum/sum: an hour with 3x the host bytes weighs 3x.
	hs := []Hour{{HostBytes: 1, NANDBytes: 2}, {HostBytes: 3, NANDBytes: 9}}
	require.InDelta(t, 11.0/4, AggregateWA(hs), 1e-12)
	require.Zero(t, AggregateWA(nil))

	r, err := Reduction(2.5, 2.2)
	require.NoError(t, err)
	require.InDelta(t, 0.12, r, 1e-12)
	_, err = Reduction(0, 2)
	require.ErrorContains(t, err, "baseline WA")
}

func TestWriteTextAndCSV(t *testing.T) {
	// Hour 4 had host writes but no NAND data: printed as missing, never 0.
	hs := append(hours(2, 0, 2.5), Hour{Hour: 4, HostBytes: 60 * MiB, Missing: "no NAND data: the drive's NAND source was down or absent"})
	var txt, csv bytes.Buffer
	require.NoError(t, WriteText(&txt, hs, "hour"))
	require.NoError(t, WriteCSV(&csv, []Run{{ID: "b1", Scenario: "baseline"}, {ID: "c1", Scenario: "streams"}}, [][]Hour{hs, hours(2.2)}))
	checkGolden(t, "table.txt", txt.Bytes())
	checkGolden(t, "table.csv", csv.Bytes())
}

func TestWritePNG(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WritePNG(&buf, []Series{{Name: "baseline", Hours: hours(2, 2.5, 2.5)}, {Name: "candidate", Hours: hours(2, 0, 2.2), Compared: [2]int{2, 3}}}))
	img, err := png.Decode(&buf)
	require.NoError(t, err)
	require.Equal(t, chartW, img.Bounds().Dx())
	require.Equal(t, chartH, img.Bounds().Dy())
	// Both series' colours are on the canvas.
	seen := map[[3]uint32]bool{}
	for y := 0; y < chartH; y++ {
		for x := 0; x < chartW; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
		}
	}
	for _, c := range palette[:2] {
		require.True(t, seen[[3]uint32{uint32(c.R), uint32(c.G), uint32(c.B)}], "colour %v missing", c)
	}
}

// FuzzWritePNG: any hourly values (huge, negative, NaN) draw without panicking.
func FuzzWritePNG(f *testing.F) {
	f.Add(2.5, 1.0, 3, 2.2, 0.0, 14)
	f.Add(-1.0, 1e300, 0, 0.0, -5.0, 1000)
	f.Fuzz(func(t *testing.T, nand1, host1 float64, h1 int, nand2, host2 float64, h2 int) {
		if h1 < 0 || h2 < 0 || h1 > 10000 || h2 > 10000 {
			t.Skip()
		}
		s := []Series{{Name: "a", Hours: []Hour{{Hour: h1, NANDBytes: nand1, HostBytes: host1}}, Compared: [2]int{h1, h1}}, {Name: "b", Hours: []Hour{{Hour: h2, NANDBytes: nand2, HostBytes: host2}}}}
		var buf bytes.Buffer
		if err := WritePNG(&buf, s); err != nil {
			t.Fatal(err)
		}
	})
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), got)
}

// BenchmarkWritePNG: a 14-hour and a 15-hour run, the size of seed 000's comparison.
func BenchmarkWritePNG(b *testing.B) {
	s := []Series{{Name: "baseline", Hours: hours(2, 2, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5)},
		{Name: "candidate", Hours: hours(2, 2, 2.2, 2.2, 0, 2.2, 2.2, 2.2, 2.2, 2.2, 2.2, 2.2, 2.2, 2.2, 2.2)}}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WritePNG(&buf, s); err != nil {
			b.Fatal(err)
		}
	}
}
