package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/buildinfo"
)

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, Main([]string{"--version"}, &out, &errb))
	require.Equal(t, buildinfo.Get().Print("loadgen")+"\n", errb.String(), "where --help goes")
}

// TestNoVersion (issue 42, low): --no-version and --version=false neither
// print the version nor stop loadgen: the command line is parsed as
// without them.
func TestNoVersion(t *testing.T) {
	for _, flag := range []string{"--no-version", "--version=false"} {
		var out, errb bytes.Buffer
		require.Equal(t, 2, Main([]string{flag, "nosuch", "run"}, &out, &errb), flag)
		require.Contains(t, errb.String(), "expected command", flag)
		require.NotContains(t, out.String()+errb.String(), buildinfo.Get().Print("loadgen"), flag)
	}
}
