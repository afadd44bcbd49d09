package decode

import "fmt"

// Vendor UUIDs looked up in the Identify UUID List to find the UUID index
// (Get Log Page CDW14 bits 6:0) under which a vendor log is served.
var (
	// OCPUUID is c194d55b-e094-4794-a21d-29998f56be6f, the index of the OCP logs.
	OCPUUID = [16]byte{0xC1, 0x94, 0xD5, 0x5B, 0xE0, 0x94, 0x47, 0x94, 0xA2, 0x1D, 0x29, 0x99, 0x8F, 0x56, 0xBE, 0x6F}
	// SolidigmUUID is 9619586e-c11b-43ad-aaaa-654187f6bbb2, under which
	// Solidigm serves its 0xCA page.
	SolidigmUUID = [16]byte{0x96, 0x19, 0x58, 0x6E, 0xC1, 0x1B, 0x43, 0xAD, 0xAA, 0xAA, 0x65, 0x41, 0x87, 0xF6, 0xBB, 0xB2}
)

const (
	uuidListHeader = 32
	uuidListEntry  = 32
	uuidListMax    = 127 // entries in a 4096-byte page after the header
)

// UUIDList is the Identify UUID List (CNS 0x17), in list order.
type UUIDList struct {
	UUIDs [][16]byte
}

// ParseUUIDList decodes the UUID list; it ends at the first all-zero UUID.
func ParseUUIDList(b []byte) (UUIDList, error) {
	if err := need("Identify UUID List (CNS 0x17)", b, IdentifySize); err != nil {
		return UUIDList{}, err
	}
	var l UUIDList
	for i := range uuidListMax {
		off := uuidListHeader + uuidListEntry*i + 16 // header byte and 15 reserved bytes precede the UUID
		u := [16]byte(b[off : off+16])
		if u == ([16]byte{}) {
			break
		}
		l.UUIDs = append(l.UUIDs, u)
	}
	return l, nil
}

// Index is the UUID index to put in CDW14 for uuid: its 1-based list
// position, or 0 ("no UUID", what nvme-cli falls back to) when absent.
func (l UUIDList) Index(uuid [16]byte) uint8 {
	for i, u := range l.UUIDs {
		if u == uuid {
			return uint8(i + 1)
		}
	}
	return 0
}

// ParseUUID reads a UUID or GUID written as 32 hex digits, with optional
// '-', ':' or ' ' separators and an optional 0x prefix.
func ParseUUID(s string) ([16]byte, error) {
	u, err := parseGUID(s)
	if err != nil {
		return u, fmt.Errorf("decode: UUID %w", err)
	}
	return u, nil
}
