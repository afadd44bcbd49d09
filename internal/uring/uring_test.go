package uring

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/testenv"
)

// TestWriteThenRead: eight 4 KiB writes in flight at once land at their
// offsets, and reads in flight at once bring them back, each completion
// tagged with its request and the bytes moved.
func TestWriteThenRead(t *testing.T) {
	r, err := New(8)
	if err != nil {
		testenv.Missing(t, "io_uring: %v", err)
	}
	defer r.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	require.NoError(t, err)
	defer f.Close()
	const bs, n = 4096, 8
	buf, err := unix.Mmap(-1, 0, bs*n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer unix.Munmap(buf)
	for i := range n {
		copy(buf[i*bs:(i+1)*bs], bytes.Repeat([]byte{byte('a' + i)}, bs))
		require.NoError(t, r.Write(int(f.Fd()), buf[i*bs:(i+1)*bs], int64((n-1-i)*bs), uint64(i)))
	}
	require.Equal(t, n, r.InFlight())
	require.ErrorContains(t, r.Write(int(f.Fd()), buf[:bs], 0, 99), "ring full")
	done, err := r.Reap(n)
	require.NoError(t, err)
	require.Len(t, done, n)
	require.Zero(t, r.InFlight())
	tags := map[uint64]bool{}
	for _, c := range done {
		require.Equal(t, int32(bs), c.Res)
		tags[c.Tag] = true
	}
	require.Len(t, tags, n)

	clear(buf)
	for i := range n {
		require.NoError(t, r.Read(int(f.Fd()), buf[i*bs:(i+1)*bs], int64(i*bs), uint64(i)))
	}
	done, err = r.Reap(n)
	require.NoError(t, err)
	require.Len(t, done, n)
	for i := range n {
		require.Equal(t, byte('a'+n-1-i), buf[i*bs], "block %d", i)
	}
	// A failed request completes with a negative errno.
	require.NoError(t, r.Read(-1, buf[:bs], 0, 7))
	done, err = r.Reap(1)
	require.NoError(t, err)
	require.Equal(t, Completion{Tag: 7, Res: -int32(unix.EBADF)}, done[0])
}
