package decode

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseDirectivesIdentifyGolden(t *testing.T) {
	b := make([]byte, DirectivesIdentifySize)
	b[0] = 1<<DirectiveIdentify | 1<<DirectiveStreams | 1<<DirectiveDataPlacement
	b[32] = 1<<DirectiveIdentify | 1<<DirectiveStreams
	b[64] = 1 << DirectiveStreams
	b[31] = 0x80 // bit 255
	d, err := ParseDirectivesIdentify(b)
	require.NoError(t, err)
	goldenJSON(t, "directives_identify", d)

	tests := []struct {
		bit                           int
		supported, enabled, persisted bool
	}{
		{DirectiveIdentify, true, true, false},
		{DirectiveStreams, true, true, true},
		{DirectiveDataPlacement, true, false, false},
		{3, false, false, false},
		{255, true, false, false},
		{256, false, false, false},
		{-1, false, false, false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.supported, d.SupportedBit(tt.bit), "supported %d", tt.bit)
		require.Equal(t, tt.enabled, d.EnabledBit(tt.bit), "enabled %d", tt.bit)
		require.Equal(t, tt.persisted, d.PersistentBit(tt.bit), "persistent %d", tt.bit)
	}
}

func TestParseStreamsParamsGolden(t *testing.T) {
	b := make([]byte, StreamsParamsSize)
	putU(b, 0, 2, 16)
	putU(b, 2, 2, 128)
	putU(b, 4, 2, 4)
	b[6] = 1
	putU(b, 16, 4, 64)
	putU(b, 20, 2, 256)
	putU(b, 22, 2, 8)
	putU(b, 24, 2, 2)
	p, err := ParseStreamsParams(b)
	require.NoError(t, err)
	goldenJSON(t, "streams_params", p)
}

func TestParseStreamsStatus(t *testing.T) {
	tests := []struct {
		name    string
		page    []byte
		want    StreamsStatus
		wantErr string
	}{
		{"two open", []byte{2, 0, 1, 0, 7, 0, 0xff, 0xff}, StreamsStatus{OpenCount: 2, IDs: []uint16{1, 7}}, ""},
		{"none open", []byte{0, 0}, StreamsStatus{IDs: []uint16{}}, ""},
		{"count beyond buffer", []byte{0xff, 0xff, 1, 0}, StreamsStatus{}, "with 65535 open streams: need 131072 bytes, got 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseStreamsStatus(tt.page)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, s)
		})
	}
}
