package decode

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseFDPStatsGolden(t *testing.T) {
	b := make([]byte, FDPStatsSize)
	putU(b, 0, 16, 1_000_000_000)
	put(b, 16, 16, above64)
	putU(b, 32, 16, 4_294_967_296)
	putU(b, 48, 16, 0xFFFF) // reserved: must not leak anywhere
	s, err := ParseFDPStats(b)
	require.NoError(t, err)
	goldenJSON(t, "fdp_stats", s)
}

// fdpDesc builds one FDP configuration descriptor: the 64-byte fixed part,
// 4 bytes per reclaim unit handle, then `extra` vendor bytes.
func fdpDesc(valid bool, nrg uint32, ruhTypes []uint8, runs uint64, extra int) []byte {
	d := make([]byte, fdpConfigFixed+fdpRUHDescriptor*len(ruhTypes)+extra)
	putU(d, 0, 2, uint64(len(d)))
	fdpa := byte(0x01 | 0x10)
	if valid {
		fdpa |= 0x80
	}
	d[2] = fdpa
	d[3] = byte(extra)
	putU(d, 4, 4, uint64(nrg))
	putU(d, 8, 2, uint64(len(ruhTypes)))
	putU(d, 10, 2, 127)
	putU(d, 12, 4, 256)
	putU(d, 16, 8, runs)
	putU(d, 24, 4, 3600)
	for i, ty := range ruhTypes {
		d[fdpConfigFixed+fdpRUHDescriptor*i] = ty
	}
	return d
}

// fdpConfigsPage builds the 0x20 log: 16-byte header, then descriptors.
func fdpConfigsPage(descs ...[]byte) []byte {
	b := make([]byte, fdpConfigsHeader)
	for _, d := range descs {
		b = append(b, d...)
	}
	putU(b, 0, 2, uint64(len(descs)-1))
	b[2] = 0
	putU(b, 4, 4, uint64(len(b)))
	return b
}

func TestParseFDPConfigsGolden(t *testing.T) {
	b := fdpConfigsPage(
		fdpDesc(true, 1, []uint8{1, 1, 2, 1, 1, 1, 1, 2}, 96<<20, 0),
		fdpDesc(false, 2, []uint8{2}, 1<<30, 8),
	)
	c, err := ParseFDPConfigs(append(b, make([]byte, 4096-len(b))...)) // the drive pads the transfer
	require.NoError(t, err)
	goldenJSON(t, "fdp_configs", readableConfigs(c))
	require.Len(t, c.Configs, 2)
}

func TestParseFDPConfigsErrors(t *testing.T) {
	le := binary.LittleEndian
	good := func() []byte { return fdpConfigsPage(fdpDesc(true, 1, []uint8{1, 1}, 1<<20, 0)) }
	tests := []struct {
		name    string
		mangle  func(b []byte) []byte
		wantErr string
	}{
		{"zero descriptor size would loop forever", func(b []byte) []byte { le.PutUint16(b[16:], 0); return b }, "size 0, below the 64-byte minimum"},
		{"descriptor size below fixed part", func(b []byte) []byte { le.PutUint16(b[16:], 63); return b }, "size 63"},
		{"descriptor size overruns the log", func(b []byte) []byte { le.PutUint16(b[16:], 0xFFFF); return b }, "overrunning"},
		{"more descriptors than bytes", func(b []byte) []byte { le.PutUint16(b[0:], 1); return b }, "descriptor 1 of 2 starts at byte"},
		{"NUMFDPC at maximum", func(b []byte) []byte { le.PutUint16(b[0:], 0xFFFF); return b }, "descriptor 1 of 65536"},
		{"handles overrun the descriptor", func(b []byte) []byte { le.PutUint16(b[16+8:], 3); return b }, "declares 3 reclaim unit handles"},
		{"header size smaller than header", func(b []byte) []byte { le.PutUint32(b[4:], 8); return b }, "smaller than the 16-byte header"},
		{"header size beyond buffer", func(b []byte) []byte { le.PutUint32(b[4:], 1<<20); return b }, "need 1048576 bytes"},
		{"truncated transfer", func(b []byte) []byte { return b[:40] }, "need 88 bytes, got 40"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFDPConfigs(tt.mangle(good()))
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestParseRUHUsage(t *testing.T) {
	tests := []struct {
		name    string
		page    func() []byte
		want    []uint8
		wantErr string
	}{
		{"three handles", func() []byte {
			b := make([]byte, 8+8*3)
			putU(b, 0, 2, 3)
			b[8], b[16], b[24] = 1, 0, 2
			return b
		}, []uint8{1, 0, 2}, ""},
		{"no handles", func() []byte { return make([]byte, 8) }, []uint8{}, ""},
		{"count beyond buffer", func() []byte {
			b := make([]byte, 16)
			putU(b, 0, 2, 0xFFFF)
			return b
		}, nil, "with 65535 handles: need 524288 bytes, got 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := ParseRUHUsage(tt.page())
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, u.Attributes)
		})
	}
}

// readableConfigs is FDPConfigs with handle types as numbers: encoding/json
// writes []uint8 as base64, which nobody can review in a golden file.
func readableConfigs(c FDPConfigs) any {
	type config struct {
		FDPConfig
		RUHTypes []int
	}
	out := struct {
		Version uint8
		Size    uint32
		Configs []config
	}{Version: c.Version, Size: c.Size}
	for _, fc := range c.Configs {
		v := config{FDPConfig: fc, RUHTypes: []int{}}
		for _, ty := range fc.RUHTypes {
			v.RUHTypes = append(v.RUHTypes, int(ty))
		}
		out.Configs = append(out.Configs, v)
	}
	return out
}
