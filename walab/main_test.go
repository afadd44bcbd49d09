package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing runs", []string{"compare"}, 2, "required flag"},
		{"unknown command", []string{"frobnicate"}, 2, "expected command"},
		// Nothing listens on port 1 of loopback: a clear error, exit 1.
		{"no prometheus", []string{"compare", "--baseline=b", "--candidate=c", "--prometheus.url=http://127.0.0.1:1", "--timeout=5s"}, 1, "find run b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			require.Equal(t, tt.code, run(tt.args, &out, &errOut), errOut.String())
			require.Contains(t, errOut.String(), tt.want)
		})
	}
}
