package decode

import (
	"errors"
	"fmt"
)

// ErrShortBuffer is wrapped by every "buffer too small" error, so callers can
// tell a truncated transfer from a page that decoded but made no sense.
var ErrShortBuffer = errors.New("short buffer")

// ShortBufferError names the structure and the byte counts, because "short
// buffer" alone does not tell an operator which command came back truncated.
type ShortBufferError struct {
	What string // e.g. "SMART log (0x02)"
	Need int
	Got  int
}

func (e *ShortBufferError) Error() string {
	return fmt.Sprintf("decode %s: need %d bytes, got %d", e.What, e.Need, e.Got)
}

func (e *ShortBufferError) Unwrap() error { return ErrShortBuffer }

func need(what string, b []byte, n int) error {
	if len(b) < n {
		return &ShortBufferError{What: what, Need: n, Got: len(b)}
	}
	return nil
}
