package decode

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every parser takes bytes straight from a device (or a replay file), so each
// gets a fuzz target whose only contract is: an error or a value, never a
// panic, and whatever invariants the decoded value promises.

var writeCorpus = flag.Bool("corpus", false, "rewrite the committed seed corpora under testdata/fuzz/")

// byteSeeds are the seeds of the []byte-only targets, built from the same
// spec-layout builders as the golden tests, plus the short/empty edge cases.
func byteSeeds() map[string][][]byte {
	fdp := fdpConfigsPage(fdpDesc(true, 1, []uint8{1, 2}, 1<<20, 0), fdpDesc(false, 2, []uint8{2}, 1<<30, 8))
	zeroDSZE := fdpConfigsPage(fdpDesc(true, 1, []uint8{1}, 1<<20, 0))
	zeroDSZE[16], zeroDSZE[17] = 0, 0
	ruh := make([]byte, 8+8*2)
	ruh[0], ruh[8], ruh[16] = 2, 1, 2
	fdpEvents := fdpEventsPage(2, fdpEventBytes(0x00, 0x07, 1, 1796404432496, 0x02, 1, 0, 3), fdpEventBytes(0x81, 0x04, 0, 1<<47, 0x0F, 0, 1, 7))
	streams := make([]byte, StreamsParamsSize)
	putU(streams, 0, 2, 16)
	putU(streams, 16, 4, 64)
	return map[string][][]byte{
		"FuzzParseIDController":       {nil, idCtrlPage()},
		"FuzzParseIDNamespace":        {nil, idNSPage(1, 1, map[int]uint8{0: 9, 1: 12}), idNSPage(20, 0x22, map[int]uint8{18: 12})},
		"FuzzParseSMART":              {nil, smartPage()},
		"FuzzParseEnduranceGroup":     {nil, enduranceGroupPage()},
		"FuzzParseOCPSmartExtended":   {nil, ocpPage(), make([]byte, OCPSmartExtendedSize)},
		"FuzzParseFDPStats":           {nil, make([]byte, FDPStatsSize)},
		"FuzzParseFDPConfigs":         {nil, fdp, zeroDSZE},
		"FuzzParseRUHUsage":           {nil, ruh, {0xff, 0xff, 0, 0, 0, 0, 0, 0}},
		"FuzzParseFDPEvents":          {nil, fdpEvents, fdpEventsPage(0xFFFFFFFF), make([]byte, 4096)},
		"FuzzParseDirectivesIdentify": {nil, append([]byte{0x07}, make([]byte, DirectivesIdentifySize-1)...)},
		"FuzzParseStreamsParams":      {nil, streams},
		"FuzzParseStreamsStatus":      {nil, {2, 0, 1, 0, 7, 0}, {0xff, 0xff, 1, 0}},
		"FuzzParseUUIDList":           {nil, uuidListPage(OCPUUID, SolidigmUUID)},
	}
}

func addByteSeeds(f *testing.F) {
	for _, s := range byteSeeds()[f.Name()] {
		f.Add(s)
	}
}

func FuzzParseIDController(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseIDController(b)
		if err == nil {
			for _, s := range []string{c.Serial, c.Model, c.Firmware} {
				for _, r := range s {
					if r < 0x20 || r > 0x7e {
						t.Fatalf("non-printable %q in identify string %q", r, s)
					}
				}
			}
			back, err := ParseIDController(AppendIDController(nil, c))
			require.NoError(t, err)
			require.Equal(t, c, back, "the encoder writes what the parser reads")
		}
	})
}

func FuzzParseIDNamespace(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		ns, err := ParseIDNamespace(b)
		if err == nil && ns.LBADataSize != 0 && (ns.LBADataSize < 512 || ns.LBADataSize&(ns.LBADataSize-1) != 0) {
			t.Fatalf("LBA size %d is not a power of two >= 512", ns.LBADataSize)
		}
		if err == nil {
			back, err := ParseIDNamespace(AppendIDNamespace(nil, ns, false))
			require.NoError(t, err)
			ns.LBAFormat = 0 // the encoder writes one format
			require.Equal(t, ns, back, "the encoder writes what the parser reads")
		}
	})
}

func FuzzParseSMART(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := ParseSMART(b); err == nil {
			s.HostWrittenBytes()
			// The encoder writes what the parser reads: a round trip is exact.
			back, err := ParseSMART(AppendSMART(nil, s))
			require.NoError(t, err)
			require.Equal(t, s, back)
		}
	})
}

func FuzzParseEnduranceGroup(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if e, err := ParseEnduranceGroup(b); err == nil {
			e.MediaWrittenBytes()
			back, err := ParseEnduranceGroup(AppendEnduranceGroup(nil, e))
			require.NoError(t, err)
			require.Equal(t, e, back, "the encoder writes what the parser reads")
		}
	})
}

func FuzzParseOCPSmartExtended(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := ParseOCPSmartExtended(b)
		if err == nil && o.GUID != OCPSmartExtendedGUID {
			t.Fatal("accepted a page without the OCP GUID")
		}
		if err == nil {
			back, err := ParseOCPSmartExtended(AppendOCPSmartExtended(nil, o))
			require.NoError(t, err)
			require.Equal(t, o, back, "the encoder writes what the parser reads")
		}
	})
}

func FuzzParseFDPStats(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if st, err := ParseFDPStats(b); err == nil {
			back, err := ParseFDPStats(AppendFDPStats(nil, st))
			require.NoError(t, err)
			require.Equal(t, st, back, "the encoder writes what the parser reads")
		}
	})
}

func FuzzParseFDPConfigs(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseFDPConfigs(b)
		if err != nil {
			return
		}
		if int(c.Size) > len(b) {
			t.Fatalf("accepted size %d beyond %d bytes", c.Size, len(b))
		}
		for i, fc := range c.Configs {
			if len(fc.RUHTypes) != int(fc.NRUH) {
				t.Fatalf("config %d: %d handle types for NRUH %d", i, len(fc.RUHTypes), fc.NRUH)
			}
		}
		// The encoder writes what the parser reads; only the total size is
		// its own (no padding, no vendor bytes past the handles).
		back, err := ParseFDPConfigs(AppendFDPConfigs(nil, c))
		require.NoError(t, err)
		c.Size = back.Size
		require.Equal(t, c, back)
	})
}

func FuzzParseRUHUsage(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := ParseRUHUsage(b)
		if err == nil && len(u.Attributes) != int(b[0])|int(b[1])<<8 {
			t.Fatalf("%d attributes for a count of %d", len(u.Attributes), int(b[0])|int(b[1])<<8)
		}
		if err == nil {
			back, err := ParseRUHUsage(AppendRUHUsage(nil, u))
			require.NoError(t, err)
			require.Equal(t, u, back, "the encoder writes what the parser reads")
		}
	})
}

func FuzzParseFDPEvents(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := ParseFDPEvents(b)
		if err != nil {
			return
		}
		if n := uint64(binary.LittleEndian.Uint32(b)); uint64(len(ev.Events)) != n || FDPEventsLen(uint32(n)) > uint32(len(b)) {
			t.Fatalf("%d events for a count of %d in %d bytes", len(ev.Events), n, len(b))
		}
		back, err := ParseFDPEvents(AppendFDPEvents(nil, ev))
		require.NoError(t, err)
		require.Equal(t, ev, back, "the encoder writes what the parser reads")
	})
}

func FuzzParseDirectivesIdentify(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := ParseDirectivesIdentify(b); err == nil {
			d.SupportedBit(DirectiveStreams)
			d.EnabledBit(300)
			back, err := ParseDirectivesIdentify(AppendDirectivesIdentify(nil, d))
			require.NoError(t, err)
			require.Equal(t, d, back, "the encoder writes what the parser reads")
		}
	})
}

func FuzzParseStreamsParams(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if sp, err := ParseStreamsParams(b); err == nil {
			back, err := ParseStreamsParams(AppendStreamsParams(nil, sp))
			require.NoError(t, err)
			require.Equal(t, sp, back, "the encoder writes what the parser reads")
		}
	})
}

func FuzzParseStreamsStatus(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStreamsStatus(b)
		if err == nil && len(s.IDs) != int(s.OpenCount) {
			t.Fatalf("%d IDs for an open count of %d", len(s.IDs), s.OpenCount)
		}
		if err == nil {
			back, err := ParseStreamsStatus(AppendStreamsStatus(nil, s.IDs))
			require.NoError(t, err)
			require.Equal(t, s, back, "the encoder writes what the parser reads")
		}
	})
}

func FuzzParseUUIDList(f *testing.F) {
	addByteSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseUUIDList(b)
		if err == nil && len(l.UUIDs) > uuidListMax {
			t.Fatalf("%d UUIDs, more than a page holds", len(l.UUIDs))
		}
		if idx := l.Index(OCPUUID); int(idx) > len(l.UUIDs) {
			t.Fatalf("index %d beyond %d UUIDs", idx, len(l.UUIDs))
		}
	})
}

// layoutSeed is one FuzzLayoutDecode input: a page and a one-field layout.
type layoutSeed struct {
	page   []byte
	kv12   bool
	offset uint32
	width  uint8
	key    uint8
	unit   uint64
	guidAt uint32 // 0 = no GUID guard
}

func layoutSeeds() []layoutSeed {
	seed := make([]byte, 800)
	putU(seed, 0x1C4, 8, 1000)
	putU(seed, 0x1D0, 8, 50)
	return []layoutSeed{
		{seed, false, 0x1C4, 8, 0, Seed000UnitBytes, 0},
		{ocpPage(), false, 0, 16, 0, 1, 496},
		{kv12Page(240, map[int][2]uint64{11: {0xF4, 5}, 12: {0xF5, 4}}), true, 0, 0, 0xF5, IntelCAUnitBytes, 0},
		{[]byte{0xF5, 0, 0, 0}, true, 0, 0, 0xF5, 1, 0},
		{nil, false, 1 << 31, 16, 0, 1 << 63, 4},
	}
}

// FuzzLayoutDecode runs user-shaped layouts (valid or not) and the built-in
// ones over arbitrary pages.
func FuzzLayoutDecode(f *testing.F) {
	for _, s := range layoutSeeds() {
		f.Add(s.page, s.kv12, s.offset, s.width, s.key, s.unit, s.guidAt)
	}
	f.Fuzz(func(t *testing.T, page []byte, kv12 bool, offset uint32, width, key uint8, unit uint64, guidAt uint32) {
		l := Layout{Name: "fuzz", LogID: 0xC0, Length: 512, Fields: []Field{
			{Meaning: MeaningHostWritten, Offset: offset, Width: width, Key: key, UnitBytes: unit},
			{Meaning: MeaningGCWritten, Offset: offset / 2, Width: width, Key: key + 1, UnitBytes: unit},
		}}
		if kv12 {
			l.Format = FormatKV12
		}
		if guidAt != 0 {
			l.Match = Match{GUIDOffset: &guidAt, NotGUID: fmt.Sprintf("%X", OCPSmartExtendedGUID[:])}
		}
		_ = l.Validate()
		if vc, err := l.Decode(page); err == nil && vc.HostWritten == nil && vc.GCWritten == nil && vc.MediaWritten == nil {
			t.Fatal("Decode succeeded with no counter")
		}
		for _, b := range BuiltinLayouts() {
			_, _ = b.Decode(page)
		}
	})
}

// FuzzU128Float64 checks the conversion against math/big's correct rounding.
func FuzzU128Float64(f *testing.F) {
	f.Add(uint64(0), uint64(0))
	f.Add(uint64(1), uint64(1<<53+1))
	f.Add(uint64(0x8000000000000801), uint64(1)) // above a tie: naive hi*2^64+lo rounds twice and gets it wrong
	f.Fuzz(func(t *testing.T, lo, hi uint64) {
		u := U128{Lo: lo, Hi: hi}
		want, _ := new(big.Float).SetInt(toBig(u)).Float64()
		if got := u.Float64(); got != want {
			t.Fatalf("%s: got %v want %v", u, got, want)
		}
	})
}

func FuzzU128UnmarshalText(f *testing.F) {
	for _, s := range []string{"0", "18446744073709551616", "340282366920938463463374607431768211455", "340282366920938463463374607431768211456", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var u U128
		if err := u.UnmarshalText([]byte(s)); err != nil {
			return
		}
		if got := u.String(); strings.TrimLeft(s, "0") != strings.TrimLeft(got, "0") {
			t.Fatalf("%q decoded to %s", s, got)
		}
	})
}

// TestWriteFuzzCorpus rewrites testdata/fuzz/ from the seeds above when run
// with -corpus, so the committed corpora stay in step with the builders.
func TestWriteFuzzCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -corpus to rewrite testdata/fuzz/")
	}
	write := func(target string, i int, values ...string) {
		dir := filepath.Join("testdata", "fuzz", target)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		body := "go test fuzz v1\n" + strings.Join(values, "\n") + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%d", i)), []byte(body), 0o644))
	}
	bytesLit := func(b []byte) string { return "[]byte(" + strconv.Quote(string(b)) + ")" }
	for target, seeds := range byteSeeds() {
		for i, s := range seeds {
			write(target, i, bytesLit(s))
		}
	}
	for i, s := range layoutSeeds() {
		write("FuzzLayoutDecode", i, bytesLit(s.page), fmt.Sprintf("bool(%t)", s.kv12), fmt.Sprintf("uint32(%d)", s.offset),
			fmt.Sprintf("byte(%d)", s.width), fmt.Sprintf("byte(%d)", s.key), fmt.Sprintf("uint64(%d)", s.unit), fmt.Sprintf("uint32(%d)", s.guidAt))
	}
	for i, v := range [][2]uint64{{0, 0}, {0x8000000000000801, 1}, {math.MaxUint64, math.MaxUint64}} {
		write("FuzzU128Float64", i, fmt.Sprintf("uint64(%d)", v[0]), fmt.Sprintf("uint64(%d)", v[1]))
	}
	for i, s := range []string{"0", "340282366920938463463374607431768211455", "340282366920938463463374607431768211456", "12a"} {
		write("FuzzU128UnmarshalText", i, "string("+strconv.Quote(s)+")")
	}
}
