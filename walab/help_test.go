package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHelpRunsNothing: a command's --help prints its usage and exits 0;
// it neither validates the (unset) flags nor starts the command.
func TestHelpRunsNothing(t *testing.T) {
	for _, cmd := range []string{"compare", "lab"} {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run([]string{cmd, "--help"}, &out, &errOut), errOut.String())
		require.Contains(t, errOut.String(), "usage: walab "+cmd)
		require.NotContains(t, errOut.String(), "walab "+cmd+":", "the command ran after its help")
	}
}
