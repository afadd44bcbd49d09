package decode

import (
	"encoding/binary"
	"fmt"
)

// The FDP Events log (LID 0x23, NVMe base spec 2.1 / TP4146): per
// endurance group (LSI), LSP bit 0 selects the host events (1) or the
// controller events (0). A 64-byte header holds the event count, then one
// 64-byte descriptor per event.
const (
	LogFDPEvents       = 0x23
	FDPEventsLSPHost   = 1  // LSP bit 0: host events; 0: controller events
	FDPEventsHdrSize   = 64 // header of log 0x23: its event count is at bytes 0..3
	FDPEventSize       = 64
	fdpEventsWhat      = "FDP events log (0x23)"
	fdpEventTimestamp  = 4  // 8-byte Timestamp data structure
	fdpEventTypeFields = 16 // 16 bytes of event-type-specific fields
	fdpEventVendor     = 40 // 24 vendor-specific bytes
)

// FDPEventType is an FDP event type. Types below 0x80 are host events,
// from 0x80 controller events.
type FDPEventType uint8

// The event types the specification defines.
const (
	FDPEventRUNotFullyWritten     FDPEventType = 0x00
	FDPEventRUTimeLimitExceeded   FDPEventType = 0x01
	FDPEventCtrlResetModifiedRUH  FDPEventType = 0x02
	FDPEventInvalidPID            FDPEventType = 0x03
	FDPEventMediaReallocated      FDPEventType = 0x80
	FDPEventImplicitlyModifiedRUH FDPEventType = 0x81
	fdpEventControllerFirst       FDPEventType = 0x80
)

// FDPEventOther is the name of every type the specification reserves or
// leaves to vendors.
const FDPEventOther = "other"

var fdpEventNames = []struct {
	t    FDPEventType
	name string
}{
	{FDPEventRUNotFullyWritten, "ru_not_fully_written"},
	{FDPEventRUTimeLimitExceeded, "ru_time_limit_exceeded"},
	{FDPEventCtrlResetModifiedRUH, "ctrl_reset_modified_ruh"},
	{FDPEventInvalidPID, "invalid_pid"},
	{FDPEventMediaReallocated, "media_reallocated"},
	{FDPEventImplicitlyModifiedRUH, "implicitly_modified_ruh"},
}

// Name is the type's name from the specification in snake case, or
// FDPEventOther for a reserved or vendor-specific type.
func (t FDPEventType) Name() string {
	for _, n := range fdpEventNames {
		if n.t == t {
			return n.name
		}
	}
	return FDPEventOther
}

// Controller reports whether the type is a controller event (0x80-0xFF).
func (t FDPEventType) Controller() bool { return t >= fdpEventControllerFirst }

// FDPEventTypeNames lists every name Name can return: a bounded set.
func FDPEventTypeNames() []string {
	out := make([]string, 0, len(fdpEventNames)+1)
	for _, n := range fdpEventNames {
		out = append(out, n.name)
	}
	return append(out, FDPEventOther)
}

// Timestamp is the NVMe Timestamp data structure (8 bytes): milliseconds in
// bits 47:0, then an attributes byte.
type Timestamp struct {
	Millis uint64 // 48 bits
	Attr   uint8  // bit 0 synch (the count may have stopped), bits 3:1 origin
}

// TimestampOriginHost is the origin "set by the host with Set Features
// Timestamp": the count is milliseconds since the Unix epoch. Origin 0
// counts from the last controller reset.
const TimestampOriginHost = 1

// Origin is the timestamp's origin field (bits 3:1 of its attributes).
func (ts Timestamp) Origin() uint8 { return ts.Attr >> 1 & 0x7 }

// WallClock reports whether Millis is Unix time (the host set it).
func (ts Timestamp) WallClock() bool { return ts.Origin() == TimestampOriginHost }

// FDPEvent is one FDP event descriptor.
type FDPEvent struct {
	Type         FDPEventType
	Flags        uint8  // FDPEF: bit 0 PID valid, bit 1 NSID valid, bit 2 location (RGID, RUHID) valid
	PID          uint16 // placement identifier
	Timestamp    Timestamp
	NSID         uint32
	TypeSpecific [fdpEventTypeFields]byte // media reallocated: flags, NLBAM (LE16 @2), LBA (LE64 @4)
	RGID         uint16                   // reclaim group
	RUHID        uint8                    // reclaim unit handle
	Vendor       [FDPEventSize - fdpEventVendor]byte
}

// PIDValid, NSIDValid and LocationValid read the event's FDPEF flags.
func (e FDPEvent) PIDValid() bool      { return e.Flags&1 != 0 }
func (e FDPEvent) NSIDValid() bool     { return e.Flags&2 != 0 }
func (e FDPEvent) LocationValid() bool { return e.Flags&4 != 0 }

// FDPEvents is one FDP Events log: host or controller events, oldest
// first as the controller keeps them. It is a window of the latest events,
// not a history.
type FDPEvents struct {
	Events []FDPEvent
}

// FDPEventsCount is the event count the header states, checked against
// limit: the reader sizes its read from it.
func FDPEventsCount(hdr []byte, limit uint32) (uint32, error) {
	if err := need(fdpEventsWhat+" header", hdr, 4); err != nil {
		return 0, err
	}
	n := binary.LittleEndian.Uint32(hdr)
	if n > limit {
		return 0, fmt.Errorf("decode %s: the header claims %d events (limit %d)", fdpEventsWhat, n, limit)
	}
	return n, nil
}

// FDPEventsLen is the length of a log holding n events.
func FDPEventsLen(n uint32) uint32 { return FDPEventsHdrSize + FDPEventSize*n }

// ParseFDPEvents decodes the FDP Events log. The count comes from the
// device: every event it claims must be in b, or it is an error.
func ParseFDPEvents(b []byte) (FDPEvents, error) {
	if err := need(fdpEventsWhat, b, FDPEventsHdrSize); err != nil {
		return FDPEvents{}, err
	}
	n := uint64(binary.LittleEndian.Uint32(b))
	if avail := uint64(len(b)-FDPEventsHdrSize) / FDPEventSize; n > avail {
		return FDPEvents{}, fmt.Errorf("decode %s: the header claims %d events, the %d-byte page holds %d: %w",
			fdpEventsWhat, n, len(b), avail, ErrShortBuffer)
	}
	le := binary.LittleEndian
	out := FDPEvents{Events: make([]FDPEvent, n)}
	for i := range out.Events {
		d := b[FDPEventsHdrSize+FDPEventSize*i:][:FDPEventSize]
		e := FDPEvent{
			Type:  FDPEventType(d[0]),
			Flags: d[1],
			PID:   le.Uint16(d[2:]),
			Timestamp: Timestamp{
				Millis: le.Uint64(d[fdpEventTimestamp:]) & (1<<48 - 1),
				Attr:   d[fdpEventTimestamp+6],
			},
			NSID:  le.Uint32(d[12:]),
			RGID:  le.Uint16(d[32:]),
			RUHID: d[34],
		}
		copy(e.TypeSpecific[:], d[16:32])
		copy(e.Vendor[:], d[fdpEventVendor:])
		out.Events[i] = e
	}
	return out, nil
}

// AppendFDPEvents appends ev as an FDP Events log (the count from
// len(ev.Events)): ParseFDPEvents(AppendFDPEvents(nil, ev)) == ev for
// timestamps within 48 bits.
func AppendFDPEvents(b []byte, ev FDPEvents) []byte {
	le := binary.LittleEndian
	p := make([]byte, FDPEventsLen(uint32(len(ev.Events))))
	le.PutUint32(p, uint32(len(ev.Events)))
	for i, e := range ev.Events {
		d := p[FDPEventsHdrSize+FDPEventSize*i:][:FDPEventSize]
		d[0], d[1] = byte(e.Type), e.Flags
		le.PutUint16(d[2:], e.PID)
		le.PutUint64(d[fdpEventTimestamp:], e.Timestamp.Millis&(1<<48-1))
		d[fdpEventTimestamp+6] = e.Timestamp.Attr
		le.PutUint32(d[12:], e.NSID)
		copy(d[16:32], e.TypeSpecific[:])
		le.PutUint16(d[32:], e.RGID)
		d[34] = e.RUHID
		copy(d[fdpEventVendor:], e.Vendor[:])
	}
	return append(b, p...)
}
