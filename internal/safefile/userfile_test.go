package safefile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadUserFile: a symlink to a regular file is followed, one to a
// device is not read; the cap holds.
func TestReadUserFile(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yml")
	require.NoError(t, os.WriteFile(plan, []byte("name: x\n"), 0o600))
	link := filepath.Join(dir, "current.yml")
	require.NoError(t, os.Symlink(plan, link))
	b, err := ReadUserFile(link, 100)
	require.NoError(t, err)
	require.Equal(t, "name: x\n", string(b))
	zero := filepath.Join(dir, "zero.yml")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	_, err = ReadUserFile(zero, 100)
	require.ErrorIs(t, err, ErrNotRegular)
	_, err = ReadUserFile(plan, 3)
	require.ErrorIs(t, err, ErrTooLarge)
}
