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
