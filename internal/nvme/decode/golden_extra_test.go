package decode

import (
	"bytes"
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
