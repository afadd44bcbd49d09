package decode

import (
	"encoding/binary"
	"fmt"
)

// Directive types, as bit positions in the Identify directive bitmaps.
const (
	DirectiveIdentify      = 0
	DirectiveStreams       = 1
	DirectiveDataPlacement = 2
)

// DirectivesIdentifySize is the data length of Directive Receive, Identify /
// Return Parameters (DTYPE 0, DOPER 1).
const DirectivesIdentifySize = 4096

// DirectivesIdentify holds the three 256-bit directive bitmaps.
type DirectivesIdentify struct {
	Supported  [32]byte
	Enabled    [32]byte
	Persistent [32]byte // persistent across controller level resets
}

func bitmapBit(m *[32]byte, bit int) bool {
	if bit < 0 || bit >= 8*len(m) {
		return false
	}
	return m[bit/8]&(1<<(bit%8)) != 0
}

// SupportedBit reports whether directive type `bit` is supported.
func (d DirectivesIdentify) SupportedBit(bit int) bool { return bitmapBit(&d.Supported, bit) }

// EnabledBit reports whether directive type `bit` is enabled.
func (d DirectivesIdentify) EnabledBit(bit int) bool { return bitmapBit(&d.Enabled, bit) }

// PersistentBit reports whether directive type `bit` persists across resets.
func (d DirectivesIdentify) PersistentBit(bit int) bool { return bitmapBit(&d.Persistent, bit) }

// ParseDirectivesIdentify decodes Identify / Return Parameters (4096 bytes).
func ParseDirectivesIdentify(b []byte) (DirectivesIdentify, error) {
	if err := need("Directive Identify parameters (DTYPE 0 DOPER 1)", b, DirectivesIdentifySize); err != nil {
		return DirectivesIdentify{}, err
	}
	var d DirectivesIdentify
	copy(d.Supported[:], b[0:32])
	copy(d.Enabled[:], b[32:64])
	copy(d.Persistent[:], b[64:96])
	return d, nil
}

// StreamsParamsSize is the data length of Streams / Return Parameters.
const StreamsParamsSize = 32

// StreamsParams is Streams / Return Parameters (DTYPE 1, DOPER 1).
type StreamsParams struct {
	MSL  uint16 // max streams limit
	NSSA uint16 // subsystem streams available
	NSSO uint16 // subsystem streams open
	NSSC uint8  // subsystem stream capability
	SWS  uint32 // stream write size, logical blocks
	SGS  uint16 // stream granularity size, units of SWS
	NSA  uint16 // namespace streams allocated
	NSO  uint16 // namespace streams open
}

// ParseStreamsParams decodes the 32-byte Streams parameters.
func ParseStreamsParams(b []byte) (StreamsParams, error) {
	if err := need("Streams parameters (DTYPE 1 DOPER 1)", b, StreamsParamsSize); err != nil {
		return StreamsParams{}, err
	}
	le := binary.LittleEndian
	return StreamsParams{
		MSL:  le.Uint16(b[0:]),
		NSSA: le.Uint16(b[2:]),
		NSSO: le.Uint16(b[4:]),
		NSSC: b[6],
		SWS:  le.Uint32(b[16:]),
		SGS:  le.Uint16(b[20:]),
		NSA:  le.Uint16(b[22:]),
		NSO:  le.Uint16(b[24:]),
	}, nil
}

// StreamsStatus is Streams / Get Status (DTYPE 1, DOPER 2).
type StreamsStatus struct {
	OpenCount uint16
	IDs       []uint16 // identifiers of the open streams
}

// ParseStreamsStatus decodes Get Status; the open count must fit the buffer.
func ParseStreamsStatus(b []byte) (StreamsStatus, error) {
	const what = "Streams status (DTYPE 1 DOPER 2)"
	if err := need(what, b, 2); err != nil {
		return StreamsStatus{}, err
	}
	le := binary.LittleEndian
	s := StreamsStatus{OpenCount: le.Uint16(b[0:])}
	if err := need(fmt.Sprintf("%s with %d open streams", what, s.OpenCount), b, 2+2*int(s.OpenCount)); err != nil {
		return StreamsStatus{}, err
	}
	s.IDs = make([]uint16, s.OpenCount)
	for i := range s.IDs {
		s.IDs[i] = le.Uint16(b[2+2*i:])
	}
	return s, nil
}

// Directive Receive types and operations (NVMe base spec, Directives).
const (
	DirTypeIdentify       = 0
	DirTypeStreams        = 1
	DirOpReturnParams     = 1 // both types: return parameters
	DirOpStreamsGetStatus = 2 // streams: open stream count and ids
	StreamsStatusTransfer = 4096
)

// AppendDirectivesIdentify appends d as the 4096-byte Identify / Return
// Parameters data: ParseDirectivesIdentify(AppendDirectivesIdentify(nil, d)) == d.
func AppendDirectivesIdentify(b []byte, d DirectivesIdentify) []byte {
	p := make([]byte, DirectivesIdentifySize)
	copy(p[0:], d.Supported[:])
	copy(p[32:], d.Enabled[:])
	copy(p[64:], d.Persistent[:])
	return append(b, p...)
}

// SetBit sets directive type bit in a bitmap (for AppendDirectivesIdentify's
// callers); an out-of-range bit is ignored.
func SetBit(m *[32]byte, bit int) {
	if bit >= 0 && bit < 8*len(m) {
		m[bit/8] |= 1 << (bit % 8)
	}
}

// AppendStreamsParams appends s as the 32-byte Streams parameters:
// ParseStreamsParams(AppendStreamsParams(nil, s)) == s.
func AppendStreamsParams(b []byte, s StreamsParams) []byte {
	p := make([]byte, StreamsParamsSize)
	le := binary.LittleEndian
	le.PutUint16(p[0:], s.MSL)
	le.PutUint16(p[2:], s.NSSA)
	le.PutUint16(p[4:], s.NSSO)
	p[6] = s.NSSC
	le.PutUint32(p[16:], s.SWS)
	le.PutUint16(p[20:], s.SGS)
	le.PutUint16(p[22:], s.NSA)
	le.PutUint16(p[24:], s.NSO)
	return append(b, p...)
}

// AppendStreamsStatus appends the open stream identifiers as Get Status
// data (the count, then one identifier each; OpenCount is len(ids)).
func AppendStreamsStatus(b []byte, ids []uint16) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(len(ids)))
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint16(b, id)
	}
	return b
}
