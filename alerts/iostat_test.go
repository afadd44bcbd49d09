package alerts

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIostatFieldsDocumented: the table in docs/collectors-host.md lists
// every iostat column and its record, so the doc cannot drift from the list.
func TestIostatFieldsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/collectors-host.md")
	require.NoError(t, err)
	records := map[string]bool{}
	for _, f := range IostatFields {
		require.False(t, records[f.Record], "record %s twice", f.Record)
		records[f.Record] = true
		require.Contains(t, string(b), "| `"+f.Column+"` | `"+f.Record+"` |", "docs/collectors-host.md lacks iostat column %s", f.Column)
		_, ok := Iostat(f.Column)
		require.True(t, ok)
	}
	_, ok := Iostat("svctm")
	require.False(t, ok, "sysstat dropped svctm; walab has no rule for it")
}
