package decode

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func enduranceGroupPage() []byte {
	b := make([]byte, EnduranceGroupSize)
	b[0], b[3], b[4], b[5] = 0b100, 98, 10, 7
	putU(b, 32, 16, 7_000)
	putU(b, 48, 16, 1_200)
	putU(b, 64, 16, 3_000)
	putU(b, 80, 16, 3_900)
	putU(b, 96, 16, 1_000_000)
	putU(b, 112, 16, 2_000_000)
	putU(b, 128, 16, 1)
	putU(b, 144, 16, 2)
	putU(b, 160, 16, 3_840_755_982_336)
	put(b, 176, 16, above64)
	return b
}

func TestParseEnduranceGroupGolden(t *testing.T) {
	e, err := ParseEnduranceGroup(enduranceGroupPage())
	require.NoError(t, err)
	goldenJSON(t, "endurance_group", e)

	host, ok := e.HostWrittenBytes()
	require.True(t, ok)
	require.Equal(t, "3000000000000", host.String())
	media, ok := e.MediaWrittenBytes()
	require.True(t, ok)
	require.Equal(t, "3900000000000", media.String())
}

func TestEnduranceGroupOverflow(t *testing.T) {
	_, ok := EnduranceGroup{MediaUnitsWritten: maxU128}.MediaWrittenBytes()
	require.False(t, ok)
}
