package replay

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestTrimTextMakesValidLabels(t *testing.T) {
	for in, want := range map[string]string{
		"Samsung SSD 980  \n":   "Samsung SSD 980",
		"ACME \xff\xfe SSD\x00": "ACME ? SSD",
		"\x00\x00":              "",
	} {
		got := trimText([]byte(in))
		require.Equal(t, want, got)
		require.True(t, utf8.ValidString(got))
	}
}
