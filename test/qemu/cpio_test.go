package qemu

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// The archive is checked with GNU cpio itself, the same reader family as
// the kernel's initramfs unpacker.
func TestArchiveReadsWithCpio(t *testing.T) {
	cpio := testenv.RequireBinary(t, "cpio")
	tests := []struct {
		name    string
		build   func(a *Archive)
		listing string // cpio -itv, reduced to "mode name [-> target]" lines
	}{
		{
			name:    "empty archive",
			build:   func(*Archive) {},
			listing: "",
		},
		{
			name: "parents are added and come first",
			build: func(a *Archive) {
				a.File("lib/modules/nvme.ko", 0o644, []byte("\x7fELF..."))
				a.File("init", 0o755, []byte("#!/bin/sh\n"))
			},
			listing: "-rwxr-xr-x init\ndrwxr-xr-x lib\ndrwxr-xr-x lib/modules\n-rw-r--r-- lib/modules/nvme.ko",
		},
		{
			name: "symlink and device node",
			build: func(a *Archive) {
				a.Symlink("bin/sh", "busybox")
				a.CharDev("dev/console", 0o600, 5, 1)
			},
			listing: "drwxr-xr-x bin\nlrwxrwxrwx bin/sh -> busybox\ndrwxr-xr-x dev\ncrw------- dev/console",
		},
		{
			name: "sizes that need every padding length",
			build: func(a *Archive) {
				for i, n := range []string{"a", "bb", "ccc", "dddd"} {
					a.File(n, 0o644, bytes.Repeat([]byte{'x'}, i+1))
				}
			},
			listing: "-rw-r--r-- a\n-rw-r--r-- bb\n-rw-r--r-- ccc\n-rw-r--r-- dddd",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := NewArchive()
			tc.build(a)
			var buf bytes.Buffer
			n, err := a.WriteTo(&buf)
			require.NoError(t, err)
			require.Equal(t, int64(buf.Len()), n)
			require.Zero(t, buf.Len()%4, "newc entries are 4-byte aligned")

			cmd := exec.Command(cpio, "-itv", "--quiet")
			cmd.Stdin = &buf
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				f := strings.Fields(l)
				if len(f) < 9 {
					continue
				}
				// mode ... name [-> target]; device lines have "5, 1" for size
				name := f[len(f)-1]
				if i := indexOf(f, "->"); i > 0 {
					name = f[i-1] + " -> " + f[i+1]
				}
				lines = append(lines, f[0]+" "+name)
			}
			require.Equal(t, tc.listing, strings.Join(lines, "\n"))
		})
	}
}

func indexOf(f []string, s string) int {
	for i, x := range f {
		if x == s {
			return i
		}
	}
	return -1
}

func TestArchiveContentRoundTrip(t *testing.T) {
	cpio := testenv.RequireBinary(t, "cpio")
	a := NewArchive()
	a.File("etc/modules.order", 0o644, []byte("/lib/modules/nvme_core.ko\n/lib/modules/nvme.ko\n"))
	var buf bytes.Buffer
	_, err := a.WriteTo(&buf)
	require.NoError(t, err)
	dir := t.TempDir()
	cmd := exec.Command(cpio, "-idm", "--quiet")
	cmd.Dir, cmd.Stdin = dir, &buf
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.FileExists(t, dir+"/etc/modules.order")
}
