package decode

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/walab/walab/internal/golden"

	"go.yaml.in/yaml/v3"

	"github.com/stretchr/testify/require"
)

// Golden files for the variable-length decoders and the vendor layouts, so a
// change in any decoded value shows up as a reviewable diff.

func TestVariableLengthGolden(t *testing.T) {
	ruh := make([]byte, 8+8*4)
	putU(ruh, 0, 2, 4)
	ruh[8], ruh[16], ruh[24], ruh[32] = 1, 2, 3, 0
	u, err := ParseRUHUsage(ruh)
	require.NoError(t, err)

	st, err := ParseStreamsStatus([]byte{3, 0, 1, 0, 2, 0, 0x10, 0x00, 0xAA, 0xBB})
	require.NoError(t, err)

	ints := func(b []uint8) []int {
		out := []int{}
		for _, v := range b {
			out = append(out, int(v))
		}
		return out
	}
	goldenJSON(t, "variable_length", map[string]any{
		"ruh_usage_attributes": ints(u.Attributes),
		"streams_status":       st,
	})
}

func TestBuiltinLayoutsGolden(t *testing.T) {
	// The built-in table as a user would write it in YAML: it must read back
	// (strictly) into the same layouts, so the yaml tags cover every field.
	out, err := yaml.Marshal(BuiltinLayouts())
	require.NoError(t, err)
	golden.Assert(t, filepath.Join("testdata", "golden", "builtin_layouts.yaml"), out)
	var back []Layout
	dec := yaml.NewDecoder(bytes.NewReader(out))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&back))
	require.Equal(t, BuiltinLayouts(), back)

	seed := make([]byte, 800)
	putU(seed, 0x1C4, 8, 0x0123_4567_89AB)
	putU(seed, 0x1D0, 8, 0x3344_5566)
	seedVC, err := BuiltinLayouts()[0].Decode(seed)
	require.NoError(t, err)

	intelVC, err := BuiltinLayouts()[1].Decode(kv12Page(240, map[int][2]uint64{11: {0xF4, 5000}, 12: {0xF5, 4000}}))
	require.NoError(t, err)
	goldenJSON(t, "vendor_counters", map[string]VendorCounters{"seed000_c0": seedVC, "intel_ca": intelVC})
}

// TestBuiltinLayoutPagesGolden: for every built-in layout, the page
// Layout.Append builds from seed 001's counts (its non-zero bytes, by
// offset) and what Decode reads back from it, in bytes. A change of any
// layout's offset, width, unit or GUID shows up in this file's diff.
func TestBuiltinLayoutPagesGolden(t *testing.T) {
	type entry struct {
		NonZero  []string       `json:"non_zero_bytes"`
		Counters VendorCounters `json:"counters"`
	}
	raw := map[string]uint64{MeaningMediaWritten: 74284, MeaningHostWritten: 48915, MeaningGCWritten: 25369}
	out := map[string]entry{}
	for _, l := range BuiltinLayouts() {
		counts := map[string]uint64{}
		for _, f := range l.Fields {
			counts[f.Meaning] = raw[f.Meaning]
		}
		page, err := l.Append(nil, counts)
		require.NoError(t, err, l.Name)
		require.Len(t, page, int(l.Length), l.Name)
		vc, err := l.Decode(page)
		require.NoError(t, err, l.Name)
		var nz []string
		for i := 0; i < len(page); {
			if page[i] == 0 {
				i++
				continue
			}
			j := i
			for j < len(page) && page[j] != 0 {
				j++
			}
			nz = append(nz, fmt.Sprintf("@%d: %X", i, page[i:j]))
			i = j
		}
		out[l.Name] = entry{NonZero: nz, Counters: vc}
	}
	goldenJSON(t, "builtin_layout_pages", out)
}
