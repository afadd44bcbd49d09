package decode

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// uuidListPage builds CNS 0x17: 32 reserved bytes, then 32-byte entries
// {header, 15 reserved, uuid[16]}.
func uuidListPage(uuids ...[16]byte) []byte {
	b := make([]byte, IdentifySize)
	for i, u := range uuids {
		off := uuidListHeader + uuidListEntry*i
		b[off] = 0x01 // association: vendor
		copy(b[off+16:], u[:])
	}
	return b
}

func TestParseUUIDList(t *testing.T) {
	other := [16]byte{1, 2, 3}
	tests := []struct {
		name     string
		page     []byte
		wantLen  int
		ocpIndex uint8
		solIndex uint8
	}{
		{"empty list", uuidListPage(), 0, 0, 0},
		{"ocp first", uuidListPage(OCPUUID, SolidigmUUID), 2, 1, 2},
		{"ocp third", uuidListPage(other, SolidigmUUID, OCPUUID), 3, 3, 2},
		{"zero entry ends the list", uuidListPage(other, [16]byte{}, OCPUUID), 1, 0, 0},
		{"full list", uuidListPage(func() [][16]byte {
			l := make([][16]byte, uuidListMax)
			for i := range l {
				l[i] = [16]byte{byte(i + 1)}
			}
			l[uuidListMax-1] = OCPUUID
			return l
		}()...), uuidListMax, uuidListMax, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseUUIDList(tt.page)
			require.NoError(t, err)
			require.Len(t, l.UUIDs, tt.wantLen)
			require.Equal(t, tt.ocpIndex, l.Index(OCPUUID))
			require.Equal(t, tt.solIndex, l.Index(SolidigmUUID))
		})
	}
	_, err := ParseUUIDList(make([]byte, 100))
	require.ErrorIs(t, err, ErrShortBuffer)
}

func TestParseUUID(t *testing.T) {
	u, err := ParseUUID("c194d55b-e094-4794-a21d-29998f56be6f")
	require.NoError(t, err)
	require.Equal(t, OCPUUID, u)
	u, err = ParseUUID(builtin(t, "intel_ca").UUID)
	require.NoError(t, err)
	require.Equal(t, SolidigmUUID, u)
	_, err = ParseUUID("c194d55b")
	require.ErrorContains(t, err, "UUID")
}
