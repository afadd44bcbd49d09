package experiment

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoadgenVersion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "loadgen")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho 'loadgen version v1 (commit abc, go1.26.8)' >&2\n"), 0o755))
	e := &Executor{Plan: &Plan{Loadgen: bin, Runs: []Run{{Workload: "tpcc"}}}}
	require.True(t, e.Plan.usesLoadgen())
	require.Equal(t, "v1 (commit abc, go1.26.8)", e.loadgenVersion(context.Background()))
	// Today's loadgen prints the Prometheus exporters' several lines; the
	// fingerprint keeps one.
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\nprintf 'loadgen, version 0.1.0 (revision: abc-modified)\\n  build date:       20261206-08:57:19\\n  go version:       go1.26.8\\n  platform:         linux/arm64\\n' >&2\n"), 0o755))
	e = &Executor{Plan: &Plan{Loadgen: bin, Runs: []Run{{Workload: "tpcc"}}}}
	require.Equal(t, "0.1.0 (commit abc-modified, go1.26.8)", e.loadgenVersion(context.Background()))
	gone := &Executor{Plan: &Plan{Loadgen: filepath.Join(t.TempDir(), "none")}}
	require.Equal(t, "", gone.loadgenVersion(context.Background()))
	require.False(t, gone.Plan.usesLoadgen())
}
