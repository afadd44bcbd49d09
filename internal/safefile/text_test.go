package safefile

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestCleanTextMakesShortValidLabels(t *testing.T) {
	for in, want := range map[string]string{
		"Samsung SSD 980  \n":         "Samsung SSD 980",
		"ACME \xff\xfe SSD\x00":       "ACME ? SSD",
		"\x00\x00":                    "",
		"bad\x1b[31mred\ttab":         "bad?[31mred?tab",
		strings.Repeat("x", 5000):     strings.Repeat("x", MaxText),
		strings.Repeat("é", 40):       strings.Repeat("é", MaxText/2), // cut on a character boundary
		"a" + strings.Repeat("é", 40): "a" + strings.Repeat("é", (MaxText-1)/2),
	} {
		got := CleanText([]byte(in))
		require.Equal(t, want, got)
		require.True(t, utf8.ValidString(got))
		require.LessOrEqual(t, len(got), MaxText)
	}
}
