package decode

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// fdpEventsPage builds log 0x23 byte by byte from the specification's
// offsets (nvme-layouts.md 5.4), independently of AppendFDPEvents.
func fdpEventsPage(count uint32, events ...[]byte) []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b, count)
	for _, e := range events {
		b = append(b, e...)
	}
	return b
}

// fdpEventBytes is one 64-byte descriptor.
func fdpEventBytes(typ, flags byte, pid uint16, ms uint64, attr byte, nsid uint32, rgid uint16, ruhid byte) []byte {
	d := make([]byte, 64)
	d[0], d[1] = typ, flags
	putU(d, 2, 2, uint64(pid))
	putU(d, 4, 6, ms)
	d[10] = attr
	d[11] = 0xEE // reserved: must not leak
	putU(d, 12, 4, uint64(nsid))
	d[16] = 1              // media reallocated: LBA valid
	putU(d, 18, 2, 8)      // NLBAM
	putU(d, 20, 8, 0x1234) // LBA
	putU(d, 32, 2, uint64(rgid))
	d[34] = ruhid
	d[35] = 0xEE // reserved
	d[63] = 0x5A // vendor specific
	return d
}

func TestParseFDPEvents(t *testing.T) {
	page := fdpEventsPage(2,
		fdpEventBytes(0x00, 0x07, 1, 1796404432496, 0x02, 1, 0, 3),
		fdpEventBytes(0x80, 0x04, 0, 5000, 0x00, 0, 1, 7),
	)
	ev, err := ParseFDPEvents(append(page, make([]byte, 4096-len(page))...)) // zero padding past the events
	require.NoError(t, err)
	require.Len(t, ev.Events, 2)
	e := ev.Events[0]
	require.Equal(t, FDPEventRUNotFullyWritten, e.Type)
	require.Equal(t, "ru_not_fully_written", e.Type.Name())
	require.False(t, e.Type.Controller())
	require.True(t, e.PIDValid() && e.NSIDValid() && e.LocationValid())
	require.Equal(t, uint16(1), e.PID)
	require.Equal(t, Timestamp{Millis: 1796404432496, Attr: 2}, e.Timestamp)
	require.True(t, e.Timestamp.WallClock(), "origin 1: set by the host")
	require.Equal(t, uint32(1), e.NSID)
	require.Equal(t, uint16(0), e.RGID)
	require.Equal(t, uint8(3), e.RUHID)
	require.Equal(t, byte(8), e.TypeSpecific[2])
	require.Equal(t, byte(0x5A), e.Vendor[23])
	c := ev.Events[1]
	require.Equal(t, "media_reallocated", c.Type.Name())
	require.True(t, c.Type.Controller())
	require.False(t, c.PIDValid() || c.NSIDValid())
	require.False(t, c.Timestamp.WallClock(), "origin 0: since the controller's reset")
	require.Equal(t, uint16(1), c.RGID)

	back := AppendFDPEvents(nil, ev)
	want := append([]byte(nil), page...)
	for _, off := range []int{64 + 11, 64 + 35, 128 + 11, 128 + 35} {
		want[off] = 0 // reserved bytes are not kept
	}
	require.Equal(t, want, back, "the encoder writes the specification's layout")
}

func TestParseFDPEventsBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		page []byte
		err  string
	}{
		{"short header", make([]byte, 63), "need 64 bytes, got 63"},
		{"count beyond the page", fdpEventsPage(2, fdpEventBytes(0, 0, 0, 0, 0, 0, 0, 0)), "claims 2 events, the 128-byte page holds 1"},
		{"count at maximum", fdpEventsPage(0xFFFFFFFF), "claims 4294967295 events"},
		{"partial descriptor", append(fdpEventsPage(1), make([]byte, 63)...), "holds 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFDPEvents(tc.page)
			require.ErrorContains(t, err, tc.err)
			require.ErrorIs(t, err, ErrShortBuffer)
		})
	}
	n, err := FDPEventsCount(fdpEventsPage(63), 63)
	require.NoError(t, err)
	require.Equal(t, uint32(4096), FDPEventsLen(n), "63 events fill 4 KiB")
	_, err = FDPEventsCount(fdpEventsPage(64), 63)
	require.ErrorContains(t, err, "claims 64 events (limit 63)")
	_, err = FDPEventsCount(nil, 63)
	require.ErrorIs(t, err, ErrShortBuffer)
}

func TestFDPEventTypeNames(t *testing.T) {
	names := FDPEventTypeNames()
	seen := map[string]bool{}
	for v := range 256 {
		n := FDPEventType(v).Name()
		require.Contains(t, names, n, "type 0x%02x", v)
		seen[n] = true
	}
	require.Len(t, seen, len(names), "every listed name is reachable")
	require.Equal(t, "other", FDPEventType(0x04).Name(), "reserved")
	require.Equal(t, "other", FDPEventType(0xF0).Name(), "vendor specific")
	require.Equal(t, "implicitly_modified_ruh", FDPEventImplicitlyModifiedRUH.Name())
}
