package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPublish: a published file appears whole or not at all; an existing
// file or symlink at the path is kept, and no temporary file is left.
func TestPublish(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	require.NoError(t, publish(p, []byte("a,b\n")))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "a,b\n", string(b))
	require.ErrorContains(t, publish(p, []byte("other")), "exists")
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), link))
	require.ErrorContains(t, publish(link, []byte("x")), "exists")
	_, err = os.Lstat(filepath.Join(dir, "nowhere"))
	require.True(t, os.IsNotExist(err), "the symlink was followed")
	b, _ = os.ReadFile(p)
	require.Equal(t, "a,b\n", string(b))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 2, "no temporary file left: %v", ents)
	require.Error(t, publish(filepath.Join(dir, "missing", "x.csv"), []byte("x")))
}
