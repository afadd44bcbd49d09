package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/buildinfo"
)

func TestVersion(t *testing.T) {
	logs := &syncBuffer{}
	require.Equal(t, 0, run(context.Background(), []string{"--version"}, logs))
	require.Contains(t, logs.String(), buildinfo.Get().Print("walab_exporter"))
}

// TestNoVersion (issue 42, low): --no-version and --version=false neither
// print the version nor stop the exporter: it goes on to validate its
// flags (and here refuses one).
func TestNoVersion(t *testing.T) {
	for _, flag := range []string{"--no-version", "--version=false"} {
		logs := &syncBuffer{}
		require.Equal(t, 1, run(context.Background(), []string{flag, "--web.max-requests=-1"}, logs), flag)
		require.Contains(t, logs.String(), "--web.max-requests", flag)
		require.NotContains(t, logs.String(), buildinfo.Get().Print("walab_exporter"), flag)
	}
}
