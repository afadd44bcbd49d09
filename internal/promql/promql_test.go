package promql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNames: every name is the prefix's, once; Names is a copy.
func TestNames(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Names() {
		require.True(t, strings.HasPrefix(n, Prefix+"_"), n)
		require.False(t, seen[n], "twice: %s", n)
		seen[n] = true
	}
	require.True(t, seen[NVMeMediaWrittenBytes])
	ns := Names()
	ns[0] = "changed"
	require.NotEqual(t, "changed", Names()[0])
}
