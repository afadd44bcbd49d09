// Package golden is the module's one golden-file helper: every test that
// compares output with a committed file goes through Assert, and one flag,
// -update, rewrites them all (`go test ./... -update`, or one package).
//
// Import it from _test.go files only: it registers the -update flag on the
// standard flag set, which only test binaries parse.
package golden

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files from the current output instead of comparing")

// Update reports whether -update was given. Tests whose golden file is
// written by another function (a generator's own writer) use it directly.
func Update() bool { return *update }

// Assert compares got with the file at path; under -update it first
// rewrites the file (creating its directory).
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file %s missing: run go test -run '%s' -update", path, t.Name())
	require.Equal(t, string(want), string(got), "output differs from %s (go test -run '%s' -update rewrites it)", path, t.Name())
}

// AssertJSON compares v, as two-space indented JSON with a final newline,
// with the file at path.
func AssertJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	Assert(t, path, append(b, '\n'))
}
