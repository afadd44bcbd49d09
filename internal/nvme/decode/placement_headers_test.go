package decode

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseFDPFeature(t *testing.T) {
	require.Equal(t, FDPFeature{Enabled: true, ConfigIndex: 3}, ParseFDPFeature(0x0301))
	require.Equal(t, FDPFeature{ConfigIndex: 0xff}, ParseFDPFeature(0xffff00))
}

func TestPlacementHeaderLengths(t *testing.T) {
	cfgs := AppendFDPConfigs(nil, FDPConfigs{Version: 0, Configs: []FDPConfig{{Valid: true, NRG: 1, NRUH: 2, RUHTypes: []uint8{1, 1}}}})
	n, err := FDPConfigsLen(cfgs[:16], 64<<10)
	require.NoError(t, err)
	require.EqualValues(t, len(cfgs), n)
	_, err = FDPConfigsLen(cfgs[:16], 8)
	require.ErrorContains(t, err, "88 bytes (want 16 to 8)", "a size over the limit names both")
	_, err = FDPConfigsLen(cfgs[:8], 64<<10)
	require.True(t, errors.Is(err, ErrShortBuffer))

	usage := AppendRUHUsage(nil, RUHUsage{Attributes: []uint8{1, 2, 0}})
	n, err = RUHUsageLen(usage[:8], 4096)
	require.NoError(t, err)
	require.EqualValues(t, len(usage), n)
	_, err = RUHUsageLen(usage[:8], 2)
	require.ErrorContains(t, err, "claims 3 handles (limit 2)")

	c, err := StreamsOpenCount([]byte{5, 0, 1, 0}) // five open, one id shown
	require.NoError(t, err)
	require.EqualValues(t, 5, c)
	_, err = StreamsOpenCount([]byte{5})
	require.True(t, errors.Is(err, ErrShortBuffer))
}
