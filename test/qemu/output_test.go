package qemu

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecodeOutput(t *testing.T) {
	payload := []byte("tar bytes \x00\x01\xff")
	enc := base64.StdEncoding.EncodeToString(payload)
	wrapped := enc[:8] + "\r\n" + enc[8:] // serial line discipline adds \r
	tests := []struct {
		name string
		raw  string
		want []byte
		err  string
	}{
		{"clean", OutBegin + "\n" + enc + "\n" + OutEnd + "\n", payload, ""},
		{"noise around, CRLF line breaks", "junk\r\n" + OutBegin + "\r\n" + wrapped + "\r\n" + OutEnd + "\r\nmore", payload, ""},
		{"nothing sent", "", nil, "no " + OutBegin},
		{"cut off", OutBegin + "\n" + enc[:10], nil, "truncated"},
		{"damaged", OutBegin + "\n" + "!!notbase64" + "\n" + OutEnd, nil, "illegal base64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeOutput([]byte(tc.raw))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func FuzzDecodeOutput(f *testing.F) {
	f.Add([]byte(OutBegin + "\nAAAA\n" + OutEnd))
	f.Add([]byte(OutEnd + OutBegin))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		b, err := DecodeOutput(raw)
		if err == nil && !strings.Contains(string(raw), OutEnd) {
			t.Fatalf("decoded %d bytes without an end marker", len(b))
		}
	})
}
