package decode

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseRUHStatus: the layout of TP4146's Reclaim Unit Handle Status
// (NRUHSD at bytes 14-15, 32-byte descriptors: PID, RUHID, EARUTR, RUAMW),
// and a count the buffer does not hold is an error.
func TestParseRUHStatus(t *testing.T) {
	b := make([]byte, 16+2*32)
	le := binary.LittleEndian
	le.PutUint16(b[14:], 2)
	le.PutUint16(b[16:], 0)
	le.PutUint16(b[18:], 1)
	le.PutUint64(b[24:], 4096)
	le.PutUint16(b[48:], 1)
	le.PutUint16(b[50:], 3)
	le.PutUint32(b[52:], 60)
	le.PutUint64(b[56:], 100)
	s, err := ParseRUHStatus(b)
	require.NoError(t, err)
	require.Equal(t, []RUHStatusDescriptor{{PID: 0, RUHID: 1, RUAMW: 4096}, {PID: 1, RUHID: 3, EARUTR: 60, RUAMW: 100}}, s.Handles)
	le.PutUint16(b[14:], 3)
	_, err = ParseRUHStatus(b)
	require.ErrorContains(t, err, "with 3 descriptors")
}
