package decode

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// idCtrlPage builds an Identify Controller page from the spec's offsets.
func idCtrlPage() []byte {
	b := make([]byte, IdentifySize)
	putU(b, 0, 2, 0x19E5)
	putU(b, 2, 2, 0x19E5)
	putS(b, 4, 20, "  SN0123456789", ' ') // leading spaces are trimmed too
	putS(b, 24, 40, "HWE52P434T0L005N", ' ')
	putS(b, 64, 8, "3.10", 0) // some firmware pads with NULs
	b[77] = 5
	putU(b, 78, 2, 0x41)
	putU(b, 96, 4, 1<<4|1<<19)
	putU(b, 256, 2, 1<<5|1<<3)
	b[261] = 0b111
	put(b, 280, 16, U128{Lo: 3_840_755_982_336})
	put(b, 296, 16, above64)
	putU(b, 340, 2, 4)
	putU(b, 516, 4, 32)
	return b
}

func TestParseIDControllerGolden(t *testing.T) {
	c, err := ParseIDController(idCtrlPage())
	require.NoError(t, err)
	goldenJSON(t, "id_controller", c)
	require.Equal(t, "SN0123456789", c.Serial)
	require.Equal(t, "3.10", c.Firmware)
}

func TestIDControllerFlags(t *testing.T) {
	tests := []struct {
		name  string
		c     IDController
		check func(IDController) bool
		want  bool
	}{
		{"directives on", IDController{OACS: 1 << 5}, IDController.DirectivesSupported, true},
		{"directives off", IDController{OACS: 0xFFFF &^ (1 << 5)}, IDController.DirectivesSupported, false},
		{"extended log data", IDController{LPA: 1 << 2}, IDController.ExtendedLogData, true},
		{"no extended log data", IDController{LPA: 0b11}, IDController.ExtendedLogData, false},
		{"smart per ns", IDController{LPA: 1}, IDController.SMARTPerNamespace, true},
		{"no smart per ns", IDController{LPA: 0b110}, IDController.SMARTPerNamespace, false},
		{"endurance groups", IDController{CTRATT: 1 << 4}, IDController.EnduranceGroups, true},
		{"no endurance groups", IDController{CTRATT: 1 << 19}, IDController.EnduranceGroups, false},
		{"fdp", IDController{CTRATT: 1 << 19}, IDController.FDPSupported, true},
		{"no fdp", IDController{CTRATT: 1 << 4}, IDController.FDPSupported, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.check(tt.c))
		})
	}
}

func TestIdentifyASCII(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"space padded", "MODEL X   ", "MODEL X"},
		{"nul padded", "MODEL X\x00\x00\x00", "MODEL X"},
		{"mixed padding", " \x00MODEL X \x00 ", "MODEL X"},
		{"all padding", "    \x00\x00", ""},
		{"inner space kept", "A  B", "A  B"},
		{"non-printable replaced", "A\x01B\xffC", "A?B?C"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, ascii([]byte(tt.in)))
		})
	}
}

func idNSPage(nlbaf, flbas uint8, formats map[int]uint8) []byte {
	b := make([]byte, IdentifySize)
	putU(b, 0, 8, 7_501_476_528)
	putU(b, 8, 8, 7_501_476_528)
	putU(b, 16, 8, 1_234_567)
	b[25] = nlbaf
	b[26] = flbas
	put(b, 48, 16, U128{Lo: 3_840_755_982_336})
	putU(b, 102, 2, 1)
	for i, lbads := range formats {
		b[128+4*i+2] = lbads
	}
	return b
}

func TestParseIDNamespaceGolden(t *testing.T) {
	ns, err := ParseIDNamespace(idNSPage(1, 1, map[int]uint8{0: 9, 1: 12}))
	require.NoError(t, err)
	goldenJSON(t, "id_namespace", ns)
}

func TestParseIDNamespaceLBAFormat(t *testing.T) {
	tests := []struct {
		name    string
		nlbaf   uint8
		flbas   uint8
		formats map[int]uint8
		want    uint32
		wantIdx uint8
		wantErr string
	}{
		{"512 B", 0, 0, map[int]uint8{0: 9}, 512, 0, ""},
		{"4 KiB second format", 1, 1, map[int]uint8{0: 9, 1: 12}, 4096, 1, ""},
		{"metadata bit ignored", 1, 0x11, map[int]uint8{1: 12}, 4096, 1, ""},
		{"upper index bits with >16 formats", 20, 0x20 | 0x02, map[int]uint8{18: 12}, 4096, 18, ""},
		{"upper bits ignored with <=16 formats", 3, 0x20 | 0x02, map[int]uint8{2: 9}, 512, 2, ""},
		{"inactive namespace", 0, 0, nil, 0, 0, ""},
		{"index beyond nlbaf", 0, 3, map[int]uint8{3: 12}, 0, 0, "selects LBA format 3 but NLBAF says only 1 exist"},
		{"lbads too small", 0, 0, map[int]uint8{0: 8}, 0, 0, "LBADS 8"},
		{"lbads too large", 0, 0, map[int]uint8{0: 40}, 0, 0, "LBADS 40"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns, err := ParseIDNamespace(idNSPage(tt.nlbaf, tt.flbas, tt.formats))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, ns.LBADataSize)
			require.Equal(t, tt.wantIdx, ns.LBAFormat)
		})
	}
}

func TestShortBuffers(t *testing.T) {
	tests := []struct {
		name  string
		parse func([]byte) error
		need  int
		what  string
	}{
		{"id controller", func(b []byte) error { _, err := ParseIDController(b); return err }, 4096, "Identify Controller (CNS 0x01)"},
		{"id namespace", func(b []byte) error { _, err := ParseIDNamespace(b); return err }, 4096, "Identify Namespace (CNS 0x00)"},
		{"smart", func(b []byte) error { _, err := ParseSMART(b); return err }, 512, "SMART log (0x02)"},
		{"endurance group", func(b []byte) error { _, err := ParseEnduranceGroup(b); return err }, 512, "Endurance Group log (0x09)"},
		{"ocp", func(b []byte) error { _, err := ParseOCPSmartExtended(b); return err }, 512, "OCP SMART extended log (0xC0)"},
		{"fdp stats", func(b []byte) error { _, err := ParseFDPStats(b); return err }, 64, "FDP statistics log (0x22)"},
		{"fdp configs", func(b []byte) error { _, err := ParseFDPConfigs(b); return err }, 16, "FDP configurations log (0x20)"},
		{"ruh usage", func(b []byte) error { _, err := ParseRUHUsage(b); return err }, 8, "FDP reclaim unit handle usage log (0x21)"},
		{"directives identify", func(b []byte) error { _, err := ParseDirectivesIdentify(b); return err }, 4096, "Directive Identify parameters"},
		{"streams params", func(b []byte) error { _, err := ParseStreamsParams(b); return err }, 32, "Streams parameters"},
		{"streams status", func(b []byte) error { _, err := ParseStreamsStatus(b); return err }, 2, "Streams status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{0, 1, tt.need - 1} {
				err := tt.parse(make([]byte, n))
				require.ErrorIs(t, err, ErrShortBuffer)
				var se *ShortBufferError
				require.ErrorAs(t, err, &se)
				require.Equal(t, tt.need, se.Need)
				require.Equal(t, n, se.Got)
				require.Contains(t, err.Error(), tt.what)
			}
		})
	}
}
