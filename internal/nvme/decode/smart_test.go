package decode

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func smartPage() []byte {
	b := make([]byte, SMARTSize)
	b[0] = 0b0000_0100
	putU(b, 1, 2, 310)
	b[3], b[4], b[5], b[6] = 100, 10, 3, 0
	putU(b, 32, 16, 9_876_543)
	put(b, 48, 16, above64) // data units written above 2^64
	putU(b, 64, 16, 111)
	putU(b, 80, 16, 222)
	putU(b, 96, 16, 333)
	putU(b, 112, 16, 44)
	putU(b, 128, 16, 5555)
	putU(b, 144, 16, 6)
	putU(b, 160, 16, 7)
	putU(b, 176, 16, 88)
	putU(b, 192, 4, 9)
	putU(b, 196, 4, 10)
	for i := range 8 {
		putU(b, 200+2*i, 2, uint64(300+i))
	}
	putU(b, 216, 4, 11)
	putU(b, 220, 4, 12)
	putU(b, 224, 4, 13)
	putU(b, 228, 4, 14)
	return b
}

func TestParseSMARTGolden(t *testing.T) {
	s, err := ParseSMART(smartPage())
	require.NoError(t, err)
	goldenJSON(t, "smart", s)
	require.Equal(t, above64, s.DataUnitsWritten)
}

func TestSMARTHostWrittenBytes(t *testing.T) {
	tests := []struct {
		name   string
		duw    U128
		want   string
		wantOK bool
	}{
		{"zero", U128{}, "0", true},
		{"one unit", U128{Lo: 1}, "512000", true},
		{"crosses 2^64", U128{Lo: 1 << 50}, "576460752303423488000", true},
		{"overflow", U128{Hi: 1 << 60}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SMART{DataUnitsWritten: tt.duw}.HostWrittenBytes()
			require.Equal(t, tt.wantOK, ok)
			if ok {
				require.Equal(t, tt.want, got.String())
			}
		})
	}
}

func TestParseSMARTAcceptsLongerBuffer(t *testing.T) {
	s, err := ParseSMART(append(smartPage(), make([]byte, 100)...))
	require.NoError(t, err)
	require.Equal(t, uint16(310), s.TemperatureKelvin)
}
