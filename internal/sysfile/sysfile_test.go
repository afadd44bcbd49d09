package sysfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadOptional reads a present file (trimmed), an absent one (not ok,
// no error) and one that cannot be read (an error naming it).
func TestReadOptional(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "streams"), []byte(" Y\n"), 0o600))
	for _, tc := range []struct {
		path, want string
		ok, fails  bool
	}{
		{path: filepath.Join(dir, "streams"), want: "Y", ok: true},
		{path: filepath.Join(dir, "absent")},
		{path: dir, fails: true}, // a directory: the read fails
	} {
		s, ok, err := ReadOptional(tc.path)
		require.Equal(t, tc.want, s, tc.path)
		require.Equal(t, tc.ok, ok, tc.path)
		if tc.fails {
			require.ErrorContains(t, err, tc.path)
		} else {
			require.NoError(t, err, tc.path)
		}
	}
}
