package device

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// image makes a 300 MiB sparse file (mkfs.xfs's minimum) and runs mkfs on it (the real mkfs.ext4 and
// mkfs.xfs, so the signatures are where the tools put them).
func image(t *testing.T, mkfs ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ns.img")
	require.NoError(t, os.WriteFile(p, nil, 0o600))
	require.NoError(t, os.Truncate(p, 300<<20))
	if len(mkfs) > 0 {
		if _, err := exec.LookPath(mkfs[0]); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s missing (e2fsprogs, xfsprogs)", mkfs[0])
			}
			t.Skipf("%s missing", mkfs[0])
		}
		out, err := exec.Command(mkfs[0], append(mkfs[1:], p)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return p
}

func checkFile(t *testing.T, p string) (bool, error) {
	t.Helper()
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	st, err := f.Stat()
	require.NoError(t, err)
	return Check(f, st.Size())
}

func TestCheckRefusesFilesystems(t *testing.T) {
	for _, c := range []struct {
		mkfs []string
		what string
	}{
		{[]string{"mkfs.ext4", "-q", "-F"}, "ext2/ext3/ext4"},
		{[]string{"mkfs.xfs", "-q", "-f"}, "XFS"},
	} {
		t.Run(c.what, func(t *testing.T) {
			p := image(t, c.mkfs...)
			_, err := checkFile(t, p)
			require.ErrorIs(t, err, ErrForeign)
			require.Contains(t, err.Error(), c.what)
		})
	}
}

// TestCheckLabelOverExt4: a walab label written over an ext4 namespace's
// start does not make it walab's: mkfs.ext4 leaves the first 1 KiB, where
// the label goes, and the signature decides first.
func TestCheckLabelOverExt4(t *testing.T) {
	p := image(t, "mkfs.ext4", "-q", "-F")
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte(Label), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = checkFile(t, p)
	require.ErrorIs(t, err, ErrForeign)
	require.Contains(t, err.Error(), "ext2/ext3/ext4")
}

func TestCheckZerosLabelForeign(t *testing.T) {
	p := image(t)
	labelled, err := checkFile(t, p)
	require.NoError(t, err, "a new (all-zero) namespace is writable")
	require.False(t, labelled)

	write := func(off int64, b []byte) {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteAt(b, off)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	write(300<<20-100, []byte("someone else's"))
	_, err = checkFile(t, p)
	require.ErrorIs(t, err, ErrForeign)
	require.Contains(t, err.Error(), "data walab did not write")
	require.Contains(t, err.Error(), "at 314572700")

	write(0, []byte(Label))
	labelled, err = checkFile(t, p)
	require.NoError(t, err, "walab's label: the backend wrote it, whatever follows")
	require.True(t, labelled)
}

// TestCheckOwnData: the backend's own label page and write buffer carry
// no signature Check would refuse, so a namespace it wrote stays its own.
func TestCheckOwnData(t *testing.T) {
	p := image(t)
	d := &Device{}
	d.buf = make([]byte, maxCmdBytes)
	fillBuf(d.buf)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	require.NoError(t, err)
	page := make([]byte, 4096)
	copy(page, Label)
	_, err = f.WriteAt(page, 0)
	require.NoError(t, err)
	for off := int64(4096); off < 2<<20; off += int64(len(d.buf)) {
		_, err = f.WriteAt(d.buf, off)
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
	labelled, err := checkFile(t, p)
	require.NoError(t, err)
	require.True(t, labelled)
}

// TestOpenRefusesLoopWithFilesystem: the whole Open path (rawdev's guard,
// O_EXCL, the O_DIRECT read) on a real loop device over an ext4 image.
func TestOpenRefusesLoopWithFilesystem(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a loop device")
	}
	p := image(t, "mkfs.ext4", "-q", "-F")
	out, err := exec.Command("losetup", "--find", "--show", p).CombinedOutput()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("losetup: %v: %s", err, out)
		}
		t.Skipf("no loop device here: %v: %s", err, out)
	}
	loop := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "-d", loop).Run() })
	_, err = Open(Config{Path: loop}, 4096, 1024)
	require.ErrorIs(t, err, ErrForeign)
	require.Contains(t, err.Error(), "ext2/ext3/ext4")

	require.NoError(t, exec.Command("losetup", "-d", loop).Run())
	require.NoError(t, os.Truncate(p, 0))
	require.NoError(t, os.Truncate(p, 300<<20))
	out, err = exec.Command("losetup", "--find", "--show", p).CombinedOutput()
	require.NoError(t, err, "%s", out)
	loop = strings.TrimSpace(string(out))
	_, err = Open(Config{Path: loop}, 4096, 1024)
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrForeign), "an empty loop device passes the content guard: %v", err)
	require.Contains(t, err.Error(), "not an NVMe namespace")
}
