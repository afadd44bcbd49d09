package decode

import (
	"path/filepath"
	"testing"

	"github.com/walab/walab/internal/golden"
)

// put writes v little-endian into b[off:off+width], the way the spec tables
// describe fields; width may be 1..16.
func put(b []byte, off, width int, v U128) {
	for i := range width {
		if i < 8 {
			b[off+i] = byte(v.Lo >> (8 * i))
		} else {
			b[off+i] = byte(v.Hi >> (8 * (i - 8)))
		}
	}
}

// putU is put for values that fit in 64 bits.
func putU(b []byte, off, width int, v uint64) { put(b, off, width, U128{Lo: v}) }

// putS writes an ASCII field padded the way a drive pads it.
func putS(b []byte, off, width int, s string, pad byte) {
	for i := range width {
		b[off+i] = pad
	}
	copy(b[off:off+width], s)
}

// goldenJSON compares v, as indented JSON, with testdata/golden/<name>.json.
func goldenJSON(t *testing.T, name string, v any) {
	t.Helper()
	golden.AssertJSON(t, filepath.Join("testdata", "golden", name+".json"), v)
}

// big is a value above 2^64 that exercises both halves of a 128-bit field.
var above64 = U128{Lo: 0x0123456789ABCDEF, Hi: 0x2A}
