//go:build linux

package wa

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

const asNobodyEnv = "WALAB_WA_TEST_AS_NOBODY"

// TestAtomicWriteUnwritableDirectory: the state directory loses its write
// permission; the save fails and the old file stays. Root ignores
// directory permissions, so as root the test binary reruns this one test
// as nobody (uid 65534).
func TestAtomicWriteUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 && os.Getenv(asNobodyEnv) == "" {
		exe, err := os.Executable()
		require.NoError(t, err)
		dir := t.TempDir()
		// t.TempDir's parent is 0700 too; nobody needs to reach the copy.
		require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
		require.NoError(t, os.Chmod(dir, 0o755))
		copyBin := filepath.Join(dir, "wa.test")
		copyFile(t, exe, copyBin)
		cmd := exec.Command(copyBin, "-test.run=^TestAtomicWriteUnwritableDirectory$", "-test.v", "-test.count=1")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), asNobodyEnv+"=1", "TMPDIR=/tmp")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "rerun as nobody:\n%s", out)
		require.Contains(t, string(out), "--- PASS: TestAtomicWriteUnwritableDirectory", string(out))
		return
	}
	require.NotZero(t, os.Geteuid(), "must not run as root here")
	dir := t.TempDir()
	path := filepath.Join(dir, "wa.state")
	require.NoError(t, atomicWriter{}.write(path, []byte("old state")))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })

	err := atomicWriter{}.write(path, []byte("new state"))
	require.ErrorIs(t, err, os.ErrPermission)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "old state", string(b))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temp file left behind")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}
