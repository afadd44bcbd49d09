package admin

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGetLogPageEncoding(t *testing.T) {
	tests := []struct {
		name string
		in   LogPage
		want Command
	}{
		{"smart with RAE (layouts ref 11: cdw10 0x007F8002)",
			LogPage{LID: 0x02, NSID: NSIDAll, Len: 512, RAE: true},
			Command{Opcode: 0x02, NSID: NSIDAll, CDW10: 0x007F8002, DataLen: 512}},
		{"endurance group 1",
			LogPage{LID: 0x09, LSI: 1, Len: 512},
			Command{Opcode: 0x02, CDW10: 0x007F0009, CDW11: 0x00010000, DataLen: 512}},
		{"numdu and offset",
			LogPage{LID: 0xC0, NSID: NSIDAll, Len: 512 * 1024, Offset: 0x1_0000_1000, UUIDX: 3},
			Command{Opcode: 0x02, NSID: NSIDAll, CDW10: 0xFFFF00C0, CDW11: 0x1, CDW12: 0x1000, CDW13: 1, CDW14: 3, DataLen: 512 * 1024}},
		{"lsp",
			LogPage{LID: 0x23, LSP: 1, LSI: 1, Len: 64},
			Command{Opcode: 0x02, CDW10: 0x000F0123, CDW11: 0x00010000, DataLen: 64}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := GetLogPage(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			lid, ok := got.LogID()
			require.True(t, ok)
			require.Equal(t, tc.in.LID, lid)
			require.Equal(t, tc.in.Offset, got.LogOffset())
			require.Equal(t, tc.in.LSI, got.LSI())
		})
	}
}

func TestGetLogPageRejectsBadLengths(t *testing.T) {
	for _, lp := range []LogPage{{LID: 2, Len: 0}, {LID: 2, Len: 6}, {LID: 2, Len: 8, Offset: 2}} {
		_, err := GetLogPage(lp)
		require.Error(t, err, "%+v", lp)
	}
}

func TestOtherEncodings(t *testing.T) {
	require.Equal(t, Command{Opcode: 0x06, CDW10: 1, DataLen: 4096}, Identify(CNSController, 0))
	require.Equal(t, Command{Opcode: 0x0A, CDW10: 0x1D, CDW11: 1}, GetFeatures(0x1D, 0, 1, 0))
	c, err := DirectiveReceive(1, 1, 1, 0, 32)
	require.NoError(t, err)
	require.Equal(t, Command{Opcode: 0x1A, NSID: 1, CDW10: 7, CDW11: 0x0101, DataLen: 32}, c)
	_, err = DirectiveReceive(1, 0, 1, 0, 0)
	require.Error(t, err)
}

func TestStatusError(t *testing.T) {
	c := Identify(CNSController, 0)
	err := NewStatusError(c, 0x4002).(*StatusError)
	require.True(t, err.DNR())
	require.True(t, err.Unsupported())
	require.Equal(t, uint8(2), err.SC())
	require.Contains(t, err.Error(), "invalid field in command")
	media := NewStatusError(c, 0x0281).(*StatusError)
	require.False(t, media.Unsupported())
	require.Equal(t, uint8(2), media.SCT())
}

func TestInvalidLogPageIsUnsupported(t *testing.T) {
	lp, err := GetLogPage(LogPage{LID: 0x22, LSI: 1, Len: 64})
	require.NoError(t, err)
	require.True(t, IsUnsupported(NewStatusError(lp, 0x4109)), "command specific Invalid Log Page means absent")
	require.False(t, IsUnsupported(NewStatusError(Identify(CNSController, 0), 0x4109)), "0x09 is only Invalid Log Page for Get Log Page")
	require.False(t, IsUnsupported(NewStatusError(lp, 0x0281)), "a media error is a failure, not an absent page")
}
