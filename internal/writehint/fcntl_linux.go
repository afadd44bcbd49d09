package writehint

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Get reads the file's write-life hint (F_GET_RW_HINT, 1035).
func Get(f *os.File) (Hint, error) {
	var h uint64
	if err := rwHint(f, unix.F_GET_RW_HINT, &h); err != nil {
		return 0, fmt.Errorf("F_GET_RW_HINT %s: %w", f.Name(), err)
	}
	return Hint(h), nil
}

// Set sets the file's write-life hint (F_SET_RW_HINT, 1036). The kernel
// takes any open descriptor; the hint belongs to the inode, not the fd.
func Set(f *os.File, h Hint) error {
	v := uint64(h)
	if err := rwHint(f, unix.F_SET_RW_HINT, &v); err != nil {
		return fmt.Errorf("F_SET_RW_HINT %s=%s: %w", f.Name(), h, err)
	}
	return nil
}

// rwHint is fcntl with a pointer argument, which unix.FcntlInt cannot pass.
func rwHint(f *os.File, cmd int, v *uint64) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno unix.Errno
	cerr := sc.Control(func(fd uintptr) {
		_, _, errno = unix.Syscall(unix.SYS_FCNTL, fd, uintptr(cmd), uintptr(unsafe.Pointer(v)))
	})
	runtime.KeepAlive(v)
	if cerr != nil {
		return cerr
	}
	if errno != 0 {
		return errno
	}
	return nil
}
