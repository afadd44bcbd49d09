package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/walab/walab/internal/golden"

	"github.com/stretchr/testify/require"
)

// exampleReplay is a committed replay directory (one controller per NAND
// source) for trying the exporter by hand:
//
//	go run ./exporter --nvme.replay=exporter/testdata/replay
//
// It is generated from the same fixtures as the end-to-end test; -update
// rewrites it.
var exampleReplay = filepath.Join("testdata", "replay")

func TestExampleReplayDirMatchesFixtures(t *testing.T) {
	fresh := writeFleet(t, fleetDrives())
	if golden.Update() {
		require.NoError(t, os.RemoveAll(exampleReplay))
		require.NoError(t, os.CopyFS(exampleReplay, os.DirFS(fresh)))
	}
	want := readTree(t, fresh)
	got := readTree(t, exampleReplay)
	require.Equal(t, len(want), len(got), "file count (run with -update to regenerate)")
	for name, b := range want {
		require.Equal(t, b, got[name], "%s differs (run with -update to regenerate)", name)
	}
}

func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[rel] = b
		return err
	}))
	return out
}
