package decode

import "fmt"

// Units of the built-in vendor layouts.
const (
	// Seed000UnitBytes is the 4 KiB unit calculate_wa.sh (seed 000) states
	// for both of its 0xC0 counters.
	Seed000UnitBytes = 4096
	// IntelCAUnitBytes is the unit Intel reports for 0xCA items 0xF4/0xF5:
	// 32 MiB per count. Not confirmed from a primary source; the WA ratio
	// does not depend on it because both counters share it.
	IntelCAUnitBytes = 32 << 20
)

// BuiltinLayouts returns walab's built-in vendor layouts, fresh each call so
// callers may modify their copy.
func BuiltinLayouts() []Layout {
	ocpGUIDOff := uint32(ocpGUIDOffset)
	return []Layout{
		{
			// Seed 000's calculate_wa.sh: `nvme get-log -i 0xc0 -n 0xffffffff
			// -l 800`, host = LE u64 at 0x1C4, GC = LE u64 at 0x1D0, 4 KiB
			// units, NAND = host + GC. Length stays 800, the request that
			// script is known to have sent successfully to these drives; it
			// covers both fields (end 0x1D8) and the OCP GUID (496..511),
			// which is checked so an OCP-compliant drive is never misread.
			Name:   "seed000_c0",
			LogID:  0xC0,
			Length: 800,
			NSID:   DefaultNSID,
			Match: Match{
				VID:        []uint16{0x19E5}, // Huawei
				GUIDOffset: &ocpGUIDOff,
				NotGUID:    fmt.Sprintf("%X", OCPSmartExtendedGUID[:]),
			},
			Format: FormatFixed,
			Fields: []Field{
				{Meaning: MeaningHostWritten, Offset: 0x1C4, Width: 8, UnitBytes: Seed000UnitBytes},
				{Meaning: MeaningGCWritten, Offset: 0x1D0, Width: 8, UnitBytes: Seed000UnitBytes},
			},
		},
		{
			// Intel/Solidigm "additional SMART" 0xCA: 12-byte key/value items,
			// scanned by key because Solidigm moves them. 512 bytes covers
			// Solidigm's 42 items and Intel's 20. Solidigm serves the page
			// under its UUID; Intel drives have no UUID list, so index 0.
			Name:   "intel_ca",
			LogID:  0xCA,
			Length: 512,
			NSID:   DefaultNSID,
			UUID:   "9619586e-c11b-43ad-aaaa-654187f6bbb2",
			Match:  Match{VID: []uint16{0x8086, 0x025E}}, // Intel, Solidigm
			Format: FormatKV12,
			Fields: []Field{
				{Meaning: MeaningMediaWritten, Key: 0xF4, UnitBytes: IntelCAUnitBytes},
				{Meaning: MeaningHostWritten, Key: 0xF5, UnitBytes: IntelCAUnitBytes},
			},
		},
	}
}
