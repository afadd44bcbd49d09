package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocsIndexLinksEveryDoc: docs/README.md, the index by task, links
// every document in docs/, and the README links the index, so a new doc
// cannot be left reachable from nowhere.
func TestDocsIndexLinksEveryDoc(t *testing.T) {
	index, err := os.ReadFile("../docs/README.md")
	require.NoError(t, err)
	docs, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	for _, d := range docs {
		name := filepath.Base(d)
		if name == "README.md" {
			continue
		}
		require.Contains(t, string(index), "("+name+")", "docs/README.md does not link %s", name)
	}
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	require.True(t, strings.Contains(string(readme), "(docs/README.md)"), "README.md does not link docs/README.md")
}
