package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/walab/walab/internal/golden"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/dashboard"
)

const committed = "../deploy/grafana/dashboards"

// TestCommittedJSONIsGenerated: the provisioned files are exactly the
// generator's output (golden; -update or `go run ./dashboards` rewrites them).
func TestCommittedJSONIsGenerated(t *testing.T) {
	if golden.Update() {
		require.NoError(t, write(committed))
	}
	dir := t.TempDir()
	require.NoError(t, write(dir))
	files, err := filepath.Glob(filepath.Join(committed, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, len(boards()), "stale JSON files in %s", committed)
	for _, bd := range boards() {
		want, err := os.ReadFile(filepath.Join(dir, bd.file))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(committed, bd.file))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s is stale: run go run ./dashboards", bd.file)
	}
}

// TestBoardsWellFormed: unique uids, every panel has a query, and queries
// use only walab metrics, recording rules, node_exporter or Prometheus' own.
func TestBoardsWellFormed(t *testing.T) {
	uids := map[string]bool{}
	for _, bd := range boards() {
		b := bd.build()
		raw, err := b.JSON()
		require.NoError(t, err)
		uid := b.Board().UID
		require.False(t, uids[uid], "duplicate uid %s", uid)
		uids[uid] = true
		require.True(t, strings.HasPrefix(bd.file, uid), "file %s should be named after uid %s", bd.file, uid)
		qs, err := dashboard.Queries(raw)
		require.NoError(t, err)
		require.NotEmpty(t, qs)
		for _, q := range qs {
			require.NotContains(t, q.Expr, "$__interval", "%s/%s: use $__rate_interval", q.Board, q.Panel)
			require.Regexp(t, `walab_|^up|node_`, q.Expr, "%s/%s", q.Board, q.Panel)
		}
	}
}

// BenchmarkBoards: building and rendering all the dashboards.
func BenchmarkBoards(b *testing.B) {
	for b.Loop() {
		for _, bd := range boards() {
			if _, err := bd.build().JSON(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
