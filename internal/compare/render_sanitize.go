package compare

import (
	"io"
	"strings"
	"unicode"
)

// plainWriter passes text on without control characters other than
// newline and tab: a label from the store (a scenario, a serial, a MySQL
// setting) must not move the terminal's cursor, retitle its window or
// hide lines (ESC sequences, CR, C1 controls). Invalid UTF-8 becomes
// U+FFFD, so no raw 8-bit control byte gets through either.
type plainWriter struct{ w io.Writer }

// PlainText wraps w so that what is written to it has no control
// characters but newline and tab.
func PlainText(w io.Writer) io.Writer { return plainWriter{w} }

func (p plainWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, Plain(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Plain is s without control characters but newline and tab, invalid
// UTF-8 as U+FFFD (see plainWriter).
func Plain(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
