package nvmetrace

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseFormatDebian61: the format file of Debian's 6.1 kernel, as the
// QEMU test's guest read it from tracefs.
func TestParseFormatDebian61(t *testing.T) {
	b, err := os.ReadFile("testdata/nvme_setup_cmd.format")
	require.NoError(t, err)
	fields, err := ParseFormat(string(b))
	require.NoError(t, err)
	l, err := LayoutOf(fields)
	require.NoError(t, err)
	require.Equal(t, Field{Offset: 40, Size: 4, Signed: true}, l.CtrlID)
	require.Equal(t, Field{Offset: 48, Size: 1, Signed: false}, l.Opcode)
	require.Equal(t, Field{Offset: 56, Size: 4, Signed: false}, l.NSID)
	require.Equal(t, Field{Offset: 61, Size: 24, Signed: false}, l.CDW10)
	require.Equal(t, Field{Offset: 8, Size: 32, Signed: true}, fields["disk"])
}

func TestParseFormatErrors(t *testing.T) {
	for in, want := range map[string]string{
		"\tfield:int ctrl_id;\toffset:x;\tsize:4;\tsigned:1;\n":                                          "offset",
		"\tfield:int ctrl_id;\tsize:4;\tsigned:1;\n":                                                     "want field",
		"\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n\tfield:int a;\toffset:4;\tsize:4;\tsigned:1;\n": "field a twice",
	} {
		_, err := ParseFormat(in)
		require.ErrorContains(t, err, want, in)
	}
	_, err := LayoutOf(map[string]Field{"ctrl_id": {Offset: 0, Size: 4}})
	require.ErrorContains(t, err, "no field nsid")
	_, err = LayoutOf(map[string]Field{"ctrl_id": {Size: 4}, "nsid": {Size: 4}, "opcode": {Size: 1}, "cdw10": {Size: 16}})
	require.ErrorContains(t, err, "cdw10 is 16 bytes")
}

func FuzzParseFormat(f *testing.F) {
	b, err := os.ReadFile("testdata/nvme_setup_cmd.format")
	require.NoError(f, err)
	f.Add(string(b))
	f.Add("field:char name[32]; offset:8; size:32; signed:0;")
	f.Fuzz(func(t *testing.T, s string) {
		fields, err := ParseFormat(s)
		if err != nil {
			return
		}
		for name, fl := range fields {
			if name == "" || fl.Offset < 0 || fl.Size <= 0 {
				t.Fatalf("%q: %+v", name, fl)
			}
		}
	})
}
