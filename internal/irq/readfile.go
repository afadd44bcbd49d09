package irq

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// AffinityReader reads the affinity lists of many lines in one scrape with
// few system calls and no garbage per line: it
// opens <procfs>/irq once and each file relative to it, reads into one
// buffer with plain read(2) (os.ReadFile adds fcntl, epoll registration,
// fstat and a read at end of file: nine calls a file on procfs instead of
// three), and parses the lists
// into reused slices. On a 256-CPU host with 856 lines of interest that is
// 1,712 files a scrape. The zero value is ready; Close releases the
// directory.
type AffinityReader struct {
	procfs string
	dir    int // fd of <procfs>/irq, or -1 when it could not be opened
	opened bool
	buf    []byte
	path   []byte // "<irq>/<name>", relative to dir
	lists  [2][]int
}

// Read reads <procfs>/irq/<irqN>/{smp,effective}_affinity_list. ok is false
// when the line's directory is gone (freed since /proc/interrupts); errors
// name the file as os.ReadFile does. The returned lists are valid until the
// next Read: they reuse the reader's memory.
func (r *AffinityReader) Read(procfs string, irqN int) (a Affinity, ok bool, err error) {
	r.open(procfs)
	b, err := r.read(irqN, "smp_affinity_list")
	if errors.Is(err, fs.ErrNotExist) {
		return a, false, nil
	}
	if err != nil {
		return a, false, err
	}
	if r.lists[0], err = appendCPUList(r.lists[0][:0], b); err != nil {
		return a, false, fmt.Errorf("irq %d smp_affinity_list: %w", irqN, err)
	}
	a.Configured = r.lists[0]
	b, err = r.read(irqN, "effective_affinity_list")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return a, true, nil
	case err != nil:
		return a, false, err
	}
	if r.lists[1], err = appendCPUList(r.lists[1][:0], b); err != nil {
		return a, false, fmt.Errorf("irq %d effective_affinity_list: %w", irqN, err)
	}
	a.Effective = r.lists[1]
	a.HasEffective = true
	return a, true, nil
}

// Close releases the directory; the reader may be used again after it.
func (r *AffinityReader) Close() {
	if r.opened && r.dir >= 0 {
		syscall.Close(r.dir)
	}
	r.opened = false
}

func (r *AffinityReader) open(procfs string) {
	if r.opened && r.procfs == procfs {
		return
	}
	r.Close()
	r.procfs, r.opened = procfs, true
	r.dir = -1
	if fd, err := openNoEINTR(unix.AT_FDCWD, filepath.Join(procfs, "irq"), syscall.O_DIRECTORY); err == nil {
		r.dir = fd
	}
}

// read reads <procfs>/irq/<irqN>/<name> into the reader's buffer. Errors
// are those of os.ReadFile on the same path.
func (r *AffinityReader) read(irqN int, name string) ([]byte, error) {
	r.path = append(strconv.AppendInt(r.path[:0], int64(irqN), 10), '/')
	r.path = append(r.path, name...)
	full := func() string { return filepath.Join(r.procfs, "irq", string(r.path)) }
	var fd int
	var err error
	if r.dir >= 0 {
		fd, err = openNoEINTR(r.dir, string(r.path), 0)
	} else {
		fd, err = openNoEINTR(unix.AT_FDCWD, full(), 0) // the open error, if any, is the file's
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: full(), Err: err}
	}
	defer syscall.Close(fd)
	if r.buf == nil {
		r.buf = make([]byte, 512)
	}
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := syscall.Read(fd, r.buf[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, &os.PathError{Op: "read", Path: full(), Err: err}
		case m == 0:
			return r.buf[:n], nil
		}
		n += m
		if n < len(r.buf) {
			// A read that did not fill the buffer got the whole file:
			// procfs and sysfs return a small file in one read, as does a
			// regular file. This saves the read(2) that would return 0.
			return r.buf[:n], nil
		}
	}
}

func openNoEINTR(dir int, path string, flags int) (int, error) {
	for {
		fd, err := syscall.Openat(dir, path, syscall.O_RDONLY|syscall.O_CLOEXEC|flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
