package decode

import (
	"encoding/binary"
	"fmt"
)

// FDPFeature is Get Features FDP (0x1D)'s completion dword 0.
type FDPFeature struct {
	Enabled     bool  // bit 0, FDPE
	ConfigIndex uint8 // bits 15:8, FDPCIDX: the active configuration
}

// ParseFDPFeature decodes Get Features FDP's dword 0.
func ParseFDPFeature(dw0 uint32) FDPFeature {
	return FDPFeature{Enabled: dw0&1 != 0, ConfigIndex: uint8(dw0 >> 8)}
}

// FDPConfigsLen is the total length of the FDP configurations log (0x20)
// as its header states it, checked against the header and limit: the size
// of the second, whole read.
func FDPConfigsLen(hdr []byte, limit uint32) (uint32, error) {
	if err := need(fdpConfigsWhat+" header", hdr, fdpConfigsHeader); err != nil {
		return 0, err
	}
	size := binary.LittleEndian.Uint32(hdr[4:])
	if size < fdpConfigsHeader || size > limit {
		return 0, fmt.Errorf("decode %s: the header says it is %d bytes (want %d to %d)", fdpConfigsWhat, size, fdpConfigsHeader, limit)
	}
	return size, nil
}

// RUHUsageLen is the length of the reclaim unit handle usage log (0x21)
// for the handle count its header states, at most limit handles.
func RUHUsageLen(hdr []byte, limit int) (uint32, error) {
	const what = "FDP reclaim unit handle usage log (0x21) header"
	if err := need(what, hdr, ruhUsageHeader); err != nil {
		return 0, err
	}
	n := int(binary.LittleEndian.Uint16(hdr))
	if n > limit {
		return 0, fmt.Errorf("decode %s: claims %d handles (limit %d)", what, n, limit)
	}
	return uint32(ruhUsageHeader + ruhUsageDescriptor*n), nil
}

// StreamsOpenCount is the open stream count of a Streams Get Status reply,
// which is right even when the reply was cut before the last stream ids.
func StreamsOpenCount(b []byte) (uint16, error) {
	if err := need("Streams status (DTYPE 1 DOPER 2)", b, 2); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}
