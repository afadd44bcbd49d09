package benchmarksql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseProperties(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []Property
		err  string
	}{
		{"plain", "a=1\nb=2\n", []Property{{"a", "1", 1}, {"b", "2", 2}}, ""},
		{"comments and blanks", "# c\n! c\n\n   \n  # indented\nk=v", []Property{{"k", "v", 6}}, ""},
		{"spaces around separator", "warehouses = 4050\nuser   root\nx:y\n  z : w", []Property{
			{"warehouses", "4050", 1}, {"user", "root", 2}, {"x", "y", 3}, {"z", "w", 4}}, ""},
		{"trailing space kept", "password=ab \n", []Property{{"password", "ab ", 1}}, ""},
		{"value with separators", "conn=jdbc:mysql://h:1/d?a=b&c=d", []Property{{"conn", "jdbc:mysql://h:1/d?a=b&c=d", 1}}, ""},
		{"continuation", "conn=jdbc:mysql://h/d?\\\n    useSSL=false\nnext=1", []Property{
			{"conn", "jdbc:mysql://h/d?useSSL=false", 1}, {"next", "1", 3}}, ""},
		{"even backslashes do not continue", "path=c:\\\\\nnext=1", []Property{{"path", `c:\`, 1}, {"next", "1", 2}}, ""},
		{"continuation at EOF", "a=1\\", []Property{{"a", "1", 1}}, ""},
		{"escapes", `k\=ey=t\tab\u0041\:`, []Property{{"k=ey", "t\tabA:", 1}}, ""},
		{"crlf", "a=1\r\nb=2\r\n", []Property{{"a", "1", 1}, {"b", "2", 2}}, ""},
		{"empty value", "password=\nkeyonly", []Property{{"password", "", 1}, {"keyonly", "", 2}}, ""},
		{"duplicate keys kept in order", "a=1\na=2", []Property{{"a", "1", 1}, {"a", "2", 2}}, ""},
		{"bad unicode escape", `a=\u12`, nil, `line 1: value of "a": malformed \uXXXX escape`},
		{"bad unicode digits", `a=\uZZZZ`, nil, "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseProperties(strings.NewReader(tc.in))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParsePropertiesTooLarge(t *testing.T) {
	_, err := ParseProperties(strings.NewReader(strings.Repeat("a", maxPropsBytes+1)))
	require.ErrorContains(t, err, "larger than")
}

func FuzzParseProperties(f *testing.F) {
	for _, s := range []string{"a=1\n", "# c\nk : v\\\n  w", `k\u0041=\t`, "password=secret\nconn=jdbc:mysql://[::1]:3307/tpcc?useSSL=false"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		props, err := ParseProperties(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, p := range props {
			require.GreaterOrEqual(t, p.Line, 1)
		}
		// The full config parse must not panic either, whatever it decides.
		c, err := Parse(strings.NewReader(s))
		if err == nil {
			_ = c.String()
			_ = c.DSN()
		}
	})
}
