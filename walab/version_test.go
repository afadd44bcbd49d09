package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/buildinfo"
)

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"--version"}, &out, &errb))
	require.Equal(t, buildinfo.Get().Print("walab")+"\n", out.String())
	require.Contains(t, out.String(), "(revision: ")
	require.Empty(t, errb.String())
}

// TestNoVersion (issue 42, low): --no-version and --version=false neither
// print the version nor stop walab.
func TestNoVersion(t *testing.T) {
	for _, flag := range []string{"--no-version", "--version=false"} {
		var out, errb bytes.Buffer
		require.Equal(t, 2, run([]string{flag, "nosuch"}, &out, &errb), flag)
		require.Contains(t, errb.String(), "expected command", flag)
		require.NotContains(t, out.String()+errb.String(), buildinfo.Get().Print("walab"), flag)
	}
}
