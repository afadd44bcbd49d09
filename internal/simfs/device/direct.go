package device

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// checkDirect runs Check on the namespace at path read with O_DIRECT, so
// the page cache cannot show bytes older than the namespace's.
func checkDirect(path string, size int64) (bool, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, fmt.Errorf("reading it: %w", err)
	}
	defer unix.Close(fd)
	return Check(directReader(fd), size)
}

// directReader reads through a page-aligned buffer (O_DIRECT's rule);
// Check's reads are whole sectors at sector-aligned offsets.
type directReader int

func (r directReader) ReadAt(p []byte, off int64) (int, error) {
	buf, err := unix.Mmap(-1, 0, len(p)+unix.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return 0, err
	}
	defer unix.Munmap(buf)
	n := 0
	for n < len(p) {
		k, err := unix.Pread(int(r), buf[n:len(p)], off+int64(n))
		if err != nil {
			return n, err
		}
		if k == 0 {
			return n, fmt.Errorf("short read at %d", off+int64(n))
		}
		n += k
	}
	return copy(p, buf[:n]), nil
}
