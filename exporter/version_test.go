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
