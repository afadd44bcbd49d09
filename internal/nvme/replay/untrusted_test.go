package replay

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
)

// within fails the test instead of hanging when f blocks.
func within(t *testing.T, f func() error) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("blocked")
		return nil
	}
}

// TestUntrustedPages: a replay folder is input, not code. Pages that are
// not regular files inside the folder are errors; none hangs, none reads
// past the transfer.
func TestUntrustedPages(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("password=hunter2"), 0o600))
	smart := logCmd(t, admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 512})
	tests := []struct {
		name  string
		setup func(t *testing.T, page string)
		err   string
	}{
		{"FIFO", func(t *testing.T, page string) { require.NoError(t, syscall.Mkfifo(page, 0o644)) }, "is a FIFO"},
		// Used to crash the exporter (os.ReadFile of an endless file).
		{"symlink to /dev/zero", func(t *testing.T, page string) { require.NoError(t, os.Symlink("/dev/zero", page)) }, "path escapes"},
		{"symlink to a root-only file outside", func(t *testing.T, page string) { require.NoError(t, os.Symlink(secret, page)) }, "path escapes"},
		{"relative symlink out of the folder", func(t *testing.T, page string) { require.NoError(t, os.Symlink("../../secret", page)) }, "path escapes"},
		{"directory", func(t *testing.T, page string) { require.NoError(t, os.Mkdir(page, 0o755)) }, "is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, filepath.Join(dir, "log-02.bin"))
			err := within(t, func() error {
				_, err := NewBackend(dir).Exec(context.Background(), smart)
				return err
			})
			require.ErrorContains(t, err, tc.err)
			require.False(t, admin.IsUnsupported(err), "a broken page is a failure, not an absent page")
		})
	}
}

func TestSymlinkInsideFolderIsFollowed(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "smart.bin"), seq(512), 0o644))
	require.NoError(t, os.Symlink("smart.bin", filepath.Join(dir, "log-02.bin")))
	res, err := NewBackend(dir).Exec(context.Background(), logCmd(t, admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 512}))
	require.NoError(t, err)
	require.Equal(t, seq(512), res.Data)
}

// TestHugePageReadsOnlyTheTransfer: a 4 GB (sparse) page is served like a
// small one: the command's bytes at its offset, nothing else loaded.
func TestHugePageReadsOnlyTheTransfer(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "log-c0.bin"))
	require.NoError(t, err)
	_, err = f.WriteAt([]byte{1, 2, 3, 4}, 4096)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(4<<30))
	require.NoError(t, f.Close())
	res, err := NewBackend(dir).Exec(context.Background(), logCmd(t, admin.LogPage{LID: 0xC0, Len: 8, Offset: 4096}))
	require.NoError(t, err)
	require.Equal(t, []byte{1, 2, 3, 4, 0, 0, 0, 0}, res.Data)
}

func TestReadTextRefusesWhatIsNotAFileOfTheFolder(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("password=hunter2"), 0o600))
	dir := t.TempDir()
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, FileModel)))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, FileSerial), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileFirmware), make([]byte, MaxTextBytes+1), 0o644))
	linked := t.TempDir() // issue 33: a hard link to a root-only file was exported as a label
	require.NoError(t, os.Link(secret, filepath.Join(linked, FileModel)))

	for _, tc := range []struct{ dir, name, want string }{
		{dir, FileModel, "path escapes"}, {dir, FileSerial, "is a FIFO"}, {dir, FileFirmware, "larger than 4096"},
		{linked, FileModel, "hard link"},
	} {
		var got string
		err := within(t, func() (err error) { got, err = ReadText(tc.dir, tc.name); return err })
		require.ErrorContains(t, err, tc.want, tc.name)
		require.Empty(t, got)
	}
	got, err := ReadText(t.TempDir(), FileModel)
	require.NoError(t, err, "an absent text file is normal")
	require.Empty(t, got)
}
