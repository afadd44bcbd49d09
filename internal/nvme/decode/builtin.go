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
	// MemblazeCAUnitBytes is the unit nvme-cli's Memblaze plugin states for
	// items 0xF4 (NAND) and 0xF5 (host) of its "Intel format" 0xCA page
	// ("unit is 32MiB", plugins/memblaze/memblaze-utils.h). One source
	// only: unconfirmed (docs/nvme-decoders.md); WA does not depend on it.
	MemblazeCAUnitBytes = 32 << 20
	// MemblazeOldCAUnitBytes is the unit of the older Memblaze 0xCA page's
	// item 0 (total, i.e. NAND, writes) and item 8 (host writes). nvme-cli's
	// plugin prints item 0 as "GB" and item 8 as "GiB"
	// (show_memblaze_smart_log_old); seed 001's table calls both "GB" and
	// divides one by the other. Taken as 1 GiB for both: unconfirmed, and
	// should the two really differ (GB against GiB) WA would be off by
	// 7.4 %, which is why this layout stays unconfirmed until a capture
	// from the drive exists (docs/nvme-decoders.md).
	MemblazeOldCAUnitBytes = 1 << 30
	// YMTCCAUnitBytes is the unit of YMTC's 0xCA items 0xF4/0xF5: nvme-cli's
	// YMTC plugin says "unit is 32MiB" beside the item ids
	// (plugins/ymtc/ymtc-utils.h) but prints the values as "sectors"
	// (ymtc-nvme.c): the sources disagree, so it is unconfirmed
	// (docs/nvme-decoders.md); WA does not depend on it.
	YMTCCAUnitBytes = 32 << 20
	// ShannonCAUnitBytes is the unit of Shannon Systems' 0xCA NAND and host
	// write items: nvme-cli's Shannon plugin prints them as "sectors"
	// (plugins/shannon/shannon-nvme.c), taken as 512 bytes. One source,
	// no byte size stated: unconfirmed; WA does not depend on it.
	ShannonCAUnitBytes = 512
	// ScaleFluxCAUnitBytes: nvme-cli's ScaleFlux plugin prints its NAND and
	// host write items as "sectors" (plugins/scaleflux/sfx-nvme.c), taken
	// as 512 bytes. One source: unconfirmed; WA does not depend on it.
	ScaleFluxCAUnitBytes = 512
	// DapuStorCAUnitBytes: nvme-cli's DapuStor plugin prints its NAND and
	// host write items as "sectors" (plugins/dapustor/dapustor-nvme.c),
	// taken as 512 bytes. One source: unconfirmed; WA does not depend on it.
	DapuStorCAUnitBytes = 512
	// SSSTCCAUnitBytes: nvme-cli's SSSTC plugin prints its NAND and host
	// write items as "sectors" (plugins/ssstc/ssstc-nvme.c), taken as 512
	// bytes. One source: unconfirmed; WA does not depend on it.
	SSSTCCAUnitBytes = 512
	// WDCExtSmartUnitBytes: nvme-cli's WDC plugin prints the extended SMART
	// page's Physical Media Units Written TLC and SLC as "(Bytes)", but its
	// own write-amplification command divides them by SMART Data Units
	// Written as if they were in the same 512,000-byte units: the source
	// disagrees with itself, so the unit is unconfirmed. The host side is
	// SMART's, so here WA does depend on it.
	WDCExtSmartUnitBytes = 1
)

// WDCExtSmartGUID identifies WDC's extended SMART ("SMART cloud
// attributes" version 1) log 0xC0, at offset 496, in page byte order
// (nvme-cli plugins/wdc/wdc-nvme.c, ext_smart_guid).
var WDCExtSmartGUID = [16]byte{0x65, 0x43, 0x88, 0x78, 0xAC, 0xD8, 0x78, 0xA1, 0x66, 0x42, 0x1E, 0x0F, 0x92, 0xD7, 0x6D, 0xC4}

// memblazeOldModels matches the model names nvme-cli's Memblaze plugin
// reads in its older format (getlogpage_format_type): a name starting with
// "P" whose first five characters sort before "P5920" (strncmp), a name
// shorter than five characters sorting before it too.
const memblazeOldModels = `^P($|[\x00-4]|5($|[\x00-8]|9($|[\x00-1]|2($|[\x00-/]))))`

// positionalCA is an "additional SMART" 0xCA page of 12-byte items in
// Intel's shape (value in bytes 5..10 of the item) read by position, as
// nvme-cli's plugins for these families read it: item 11 NAND writes,
// item 12 host writes, both in unit bytes per count.
func positionalCA(name string, vid uint16, length uint32, unit uint64) Layout {
	return Layout{
		Name: name, LogID: 0xCA, Length: length, NSID: DefaultNSID,
		Match: Match{VID: []uint16{vid}}, Format: FormatFixed,
		Fields: []Field{
			{Meaning: MeaningMediaWritten, Offset: 11*12 + 5, Width: 6, UnitBytes: unit},
			{Meaning: MeaningHostWritten, Offset: 12*12 + 5, Width: 6, UnitBytes: unit},
		},
	}
}

// BuiltinLayouts returns walab's built-in vendor layouts, fresh each call so
// callers may modify their copy.
func BuiltinLayouts() []Layout {
	return []Layout{
		seed000C0(),
		intelCA(),
		memblazeCA(),
		memblazeCAOld(),
		// YMTC "additional SMART" 0xCA: nvme-cli's YMTC plugin reads a
		// 4096-byte page of 12-byte items in Intel's format (id[3] nm[2]
		// raw[7], value in the raw field's low 6 bytes) by position: item
		// 11 is total (NAND) writes, id 0xF4, item 12 host writes, id
		// 0xF5. Read by position too, as the plugin does.
		positionalCA("ymtc_ca", 0x1E49, 512, YMTCCAUnitBytes), // Yangtze Memory Technologies
		// Shannon Systems "additional SMART" 0xCA: nvme-cli's Shannon
		// plugin declares 12-byte items {rsv[3], norm, rsv, value[6],
		// rsv} with no item ids, read by position: item 11 NAND writes,
		// item 12 host writes.
		positionalCA("shannon_ca", 0x1CB0, 512, ShannonCAUnitBytes), // Shannon Systems
		// ScaleFlux "additional SMART" 0xCA: nvme-cli's ScaleFlux plugin
		// reads 23 items of 12 bytes {key, 2 reserved, norm, reserved,
		// raw[6], reserved} (276 bytes) and takes them by position:
		// item 11 nand_bytes_written, item 12 host_bytes_written. It
		// names no key values, so they are read by position too.
		positionalCA("scaleflux_ca", 0xCC53, 276, ScaleFluxCAUnitBytes), // ScaleFlux
		// DapuStor "additional SMART" 0xCA: nvme-cli's DapuStor plugin
		// reads 13 items of 12 bytes {key, 2 reserved, norm, reserved,
		// raw[6], reserved} (156 bytes) by position: item 11
		// nand_bytes_written, item 12 host_bytes_written.
		positionalCA("dapustor_ca", 0x1E3B, 156, DapuStorCAUnitBytes), // DapuStor
		ssstcCA(),
		wdcC0Ext(),
	}
}

// seed000C0 is seed 000's calculate_wa.sh: `nvme get-log -i 0xc0 -n
// 0xffffffff -l 800`, host = LE u64 at 0x1C4, GC = LE u64 at 0x1D0, 4 KiB
// units, NAND = host + GC. Length stays 800, the request that script is
// known to have sent successfully to these drives; it covers both fields
// (end 0x1D8) and the OCP GUID (496..511), which is checked so an
// OCP-compliant drive is never misread.
func seed000C0() Layout {
	ocpGUIDOff := uint32(ocpGUIDOffset)
	return Layout{
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
	}
}

// intelCA is Intel/Solidigm "additional SMART" 0xCA: 12-byte key/value
// items, scanned by key because Solidigm moves them. 512 bytes covers
// Solidigm's 42 items and Intel's 20. Solidigm serves the page under its
// UUID; Intel drives have no UUID list, so index 0.
func intelCA() Layout {
	l := keyedCA("intel_ca", Match{VID: []uint16{0x8086, 0x025E}}, IntelCAUnitBytes) // Intel, Solidigm
	l.UUID = "9619586e-c11b-43ad-aaaa-654187f6bbb2"
	return l
}

// keyedCA is a 512-byte "additional SMART" 0xCA page of 12-byte key/value
// items in Intel's format, scanned by key: 0xF4 NAND writes, 0xF5 host
// writes, both in unit bytes per count.
func keyedCA(name string, match Match, unit uint64) Layout {
	return Layout{
		Name: name, LogID: 0xCA, Length: 512, NSID: DefaultNSID,
		Match: match, Format: FormatKV12,
		Fields: []Field{
			{Meaning: MeaningMediaWritten, Key: 0xF4, UnitBytes: unit},
			{Meaning: MeaningHostWritten, Key: 0xF5, UnitBytes: unit},
		},
	}
}

// memblazeCA is Memblaze "additional SMART" 0xCA in the format nvme-cli's
// Memblaze plugin calls Intel/new: 12-byte items of a 3-byte id, a 2-byte
// normalized value and a 7-byte raw field whose low 6 bytes are the value,
// so the id is the first byte and the value starts at byte 5, as in
// Intel's items. NAND bytes written is 0xF4, host bytes written 0xF5. The
// models the plugin reads in its older format are memblaze_ca_old's.
func memblazeCA() Layout {
	return keyedCA("memblaze_ca", Match{VID: []uint16{0x1C5F}, NotModelRegex: memblazeOldModels}, MemblazeCAUnitBytes) // Memblaze
}

// memblazeCAOld is Memblaze's older 0xCA page (seed 001's PBlaze4
// generation: the models nvme-cli sorts before P5920), read by position as
// nvme-cli's show_memblaze_smart_log_old reads it: 12-byte items {id[3],
// nmval[2], rawval[6], resv}, item 0 total (NAND) writes, item 8 host
// writes, each a 48-bit little-endian count of MemblazeOldCAUnitBytes.
// Item 8 is read only when its id is 0xF5, as nvme-cli checks it.
func memblazeCAOld() Layout {
	return Layout{
		Name:   "memblaze_ca_old",
		LogID:  0xCA,
		Length: 512,
		NSID:   DefaultNSID,
		Match:  Match{VID: []uint16{0x1C5F}, ModelRegex: memblazeOldModels}, // Memblaze
		Format: FormatFixed,
		Fields: []Field{
			{Meaning: MeaningMediaWritten, Offset: 0*12 + 5, Width: 6, UnitBytes: MemblazeOldCAUnitBytes},
			{Meaning: MeaningHostWritten, Offset: 8*12 + 5, Width: 6, UnitBytes: MemblazeOldCAUnitBytes, ID: &memblazeHostWriteID, IDOffset: 8 * 12},
		},
	}
}

// memblazeHostWriteID is the id of Memblaze's host writes item.
var memblazeHostWriteID uint8 = 0xF5

// ssstcCA is SSSTC "additional SMART" 0xCA: nvme-cli's SSSTC plugin reads
// 23 items of 10 bytes {key, norm, raw[6], 2 reserved} by position: item 5
// nand_bytes_written (raw at 52), item 6 host_bytes_written (raw at 62).
// The plugin asks for 230 bytes; a Get Log Page reads whole dwords, so 232.
func ssstcCA() Layout {
	return Layout{
		Name:   "ssstc_ca",
		LogID:  0xCA,
		Length: 232,
		NSID:   DefaultNSID,
		Match:  Match{VID: []uint16{0x1E95}}, // Solid State Storage Technology
		Format: FormatFixed,
		Fields: []Field{
			{Meaning: MeaningMediaWritten, Offset: 5*10 + 2, Width: 6, UnitBytes: SSSTCCAUnitBytes},
			{Meaning: MeaningHostWritten, Offset: 6*10 + 2, Width: 6, UnitBytes: SSSTCCAUnitBytes},
		},
	}
}

// wdcC0Ext is WDC extended SMART ("SMART cloud attributes" v1) 0xC0, 512
// bytes, recognised by its own GUID at 496 (not OCP's): Physical Media
// Units Written TLC @0 and SLC @16, 128-bit each. NAND writes are their
// sum; the host side is SMART's.
func wdcC0Ext() Layout {
	ocpGUIDOff := uint32(ocpGUIDOffset)
	return Layout{
		Name:   "wdc_c0_ext",
		LogID:  0xC0,
		Length: 512,
		NSID:   DefaultNSID,
		Match: Match{
			VID:        []uint16{0x1B96, 0x1C58, 0x15B7}, // Western Digital, HGST, SanDisk
			GUIDOffset: &ocpGUIDOff,
			GUID:       fmt.Sprintf("%X", WDCExtSmartGUID[:]),
		},
		Format: FormatFixed,
		Fields: []Field{
			{Meaning: MeaningMediaWritten, Offset: 0, Width: 16, UnitBytes: WDCExtSmartUnitBytes},
			{Meaning: MeaningMediaWritten, Offset: 16, Width: 16, UnitBytes: WDCExtSmartUnitBytes},
		},
	}
}
