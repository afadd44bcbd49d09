package decode

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ocpPage builds an OCP 0xC0 page from the OCP table; every field gets a
// distinct value so a wrong offset shows in the golden file.
func ocpPage() []byte {
	b := make([]byte, OCPSmartExtendedSize)
	put(b, 0, 16, above64)
	putU(b, 16, 16, 987_654_321_000)
	putU(b, 32, 6, 0x0000_0102_0304_0506)
	putU(b, 38, 2, 100)
	putU(b, 40, 6, 7)
	putU(b, 46, 2, 99)
	putU(b, 48, 8, 8)
	putU(b, 56, 8, 9)
	putU(b, 64, 8, 10)
	putU(b, 72, 4, 11)
	putU(b, 76, 4, 12)
	b[80] = 13
	putU(b, 81, 7, 0x00AA_BBCC_DDEE_FF11)
	putU(b, 88, 4, 15)
	putU(b, 92, 4, 16)
	b[96], b[97] = 17, 1
	putU(b, 104, 8, 19)
	putU(b, 112, 4, 20)
	b[120] = 21
	putU(b, 128, 2, 22)
	putU(b, 136, 8, 23)
	putU(b, 144, 8, 24)
	putU(b, 152, 8, 25)
	putU(b, 160, 16, 26)
	putU(b, 176, 16, 27)
	putU(b, 192, 8, 28)
	putU(b, 200, 8, 29)
	putU(b, 224, 8, 30)
	putU(b, 232, 4, 31)
	putU(b, 494, 2, 5)
	copy(b[496:], OCPSmartExtendedGUID[:])
	return b
}

func TestParseOCPSmartExtendedGolden(t *testing.T) {
	o, err := ParseOCPSmartExtended(ocpPage())
	require.NoError(t, err)
	goldenJSON(t, "ocp_smart_extended", o)
	require.Equal(t, above64, o.PhysicalMediaUnitsWritten)
	require.Equal(t, uint64(0x0102_0304_0506), o.BadUserNANDBlocksRaw)
	require.Equal(t, uint64(0x00AA_BBCC_DDEE_FF11), o.RefreshCount)
}

func TestParseOCPSmartExtendedGUIDMismatch(t *testing.T) {
	wdc := [16]byte{0x65, 0x43, 0x88, 0x78, 0xAC, 0xD8, 0x78, 0xA1, 0x66, 0x42, 0x1E, 0x0F, 0x92, 0xD7, 0x6D, 0xC4}
	reversed := OCPSmartExtendedGUID
	for i, j := 0, 15; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	tests := []struct {
		name string
		guid [16]byte
	}{
		{"vendor page without GUID", [16]byte{}},
		{"WDC extended SMART GUID", wdc},
		{"OCP GUID byte-reversed", reversed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ocpPage()
			copy(b[496:], tt.guid[:])
			_, err := ParseOCPSmartExtended(b)
			require.ErrorIs(t, err, ErrGUIDMismatch)
			require.ErrorContains(t, err, "offset 496")
		})
	}
}
