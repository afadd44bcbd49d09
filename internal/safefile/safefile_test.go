package safefile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// withDeadline fails the test instead of hanging when f blocks (a FIFO).
func withDeadline(t *testing.T, f func() ([]byte, error)) ([]byte, error) {
	t.Helper()
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() { b, err := f(); ch <- res{b, err} }()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-time.After(5 * time.Second):
		t.Fatal("read blocked")
		return nil, nil
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	regular := write("regular", "hello")
	write("big", string(make([]byte, 101)))
	require.NoError(t, os.Symlink(regular, filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink("/dev/null", filepath.Join(dir, "devnull")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "dir"), 0o755))

	tests := []struct {
		name string
		path string
		want string // content, or the error text
		is   error
	}{
		{"regular", regular, "hello", nil},
		{"exactly the cap", write("cap", string(make([]byte, 100))), string(make([]byte, 100)), nil},
		{"over the cap", filepath.Join(dir, "big"), "is 101 bytes, larger than 100", ErrTooLarge},
		{"symlink to a regular file", filepath.Join(dir, "link"), "is a symlink", ErrNotRegular},
		{"symlink to a device", filepath.Join(dir, "devnull"), "is a symlink", ErrNotRegular},
		{"device node", "/dev/zero", "is a character device", ErrNotRegular},
		{"FIFO", filepath.Join(dir, "fifo"), "is a FIFO", ErrNotRegular},
		{"directory", filepath.Join(dir, "dir"), "is a directory", ErrNotRegular},
		{"missing", filepath.Join(dir, "none"), "no such file", fs.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := withDeadline(t, func() ([]byte, error) { return ReadFile(tc.path, 100) })
			if tc.is == nil {
				require.NoError(t, err)
				require.Equal(t, tc.want, string(b))
				return
			}
			require.ErrorIs(t, err, tc.is)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestReadFileIn(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("password"), 0o600))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "page"), []byte("page"), 0o644))
	require.NoError(t, os.Symlink("page", filepath.Join(dir, "inside")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "escape")))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()

	b, err := ReadFileIn(root, "inside", 10)
	require.NoError(t, err, "a symlink inside the directory is followed")
	require.Equal(t, "page", string(b))
	for _, name := range []string{"escape", "zero", "../secret"} {
		_, err := ReadFileIn(root, name, 10)
		require.ErrorContains(t, err, "escapes", name)
	}
	_, err = withDeadline(t, func() ([]byte, error) { return ReadFileIn(root, "fifo", 10) })
	require.ErrorIs(t, err, ErrNotRegular)
	require.ErrorContains(t, err, dir+"/fifo is a FIFO")
}
