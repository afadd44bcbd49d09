package decode

import "testing"

// The exporter decodes a handful of pages per device per scrape; these keep
// an eye on allocation-free hot paths rather than on absolute speed.

func BenchmarkParseSMART(b *testing.B) {
	page := smartPage()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSMART(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseIDController(b *testing.B) {
	page := idCtrlPage()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseIDController(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseOCPSmartExtended(b *testing.B) {
	page := ocpPage()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseOCPSmartExtended(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseFDPConfigs(b *testing.B) {
	page := fdpConfigsPage(fdpDesc(true, 1, make([]uint8, 8), 96<<20, 0))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFDPConfigs(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLayoutDecodeSeed000(b *testing.B) {
	page := make([]byte, 800)
	putU(page, 0x1C4, 8, 1000)
	putU(page, 0x1D0, 8, 50)
	l := BuiltinLayouts()[0]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Decode(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLayoutDecodeIntelCA(b *testing.B) {
	page := kv12Page(512, map[int][2]uint64{11: {0xF4, 5000}, 12: {0xF5, 4000}})
	l := BuiltinLayouts()[1]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Decode(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkU128String(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = maxU128.String()
	}
}
