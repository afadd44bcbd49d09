package qemu

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Output markers the guest writes around the base64 tar on its second
// serial port.
const (
	OutBegin = "WALAB-OUT-BEGIN"
	OutEnd   = "WALAB-OUT-END"
)

// DecodeOutput extracts the base64 payload between the markers. Serial
// line discipline may add \r; base64 ignores line breaks.
func DecodeOutput(raw []byte) ([]byte, error) {
	s := string(raw)
	i := strings.Index(s, OutBegin)
	if i < 0 {
		return nil, fmt.Errorf("guest output has no %s marker (%d bytes received)", OutBegin, len(raw))
	}
	s = s[i+len(OutBegin):]
	j := strings.Index(s, OutEnd)
	if j < 0 {
		return nil, fmt.Errorf("guest output truncated: no %s marker", OutEnd)
	}
	b, err := base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(s[:j]))
	if err != nil {
		return nil, fmt.Errorf("guest output: %w", err)
	}
	return b, nil
}
