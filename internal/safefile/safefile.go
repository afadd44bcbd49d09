// Package safefile reads files walab does not trust: replay pages, sysfs
// identity attributes, its own state file (whose path a user configures).
// A read never blocks on a FIFO, never streams a device node, never
// follows a symlink it was not allowed to, and never allocates more than
// the caller's cap.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by every refusal of a path that is not a plain
// file (symlink, FIFO, device node, socket, directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped when a file is longer than the caller's cap.
var ErrTooLarge = errors.New("file too large")

// openFlags: O_NONBLOCK so that opening a FIFO returns at once (a blocking
// open waits for a writer forever); the Fstat below then refuses it.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// ReadFile reads path, which must be a regular file that is not a symlink,
// of at most max bytes. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, openFlags|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symlink; refusing to follow it: %w", path, ErrNotRegular)
		}
		return nil, err
	}
	defer f.Close()
	return readOpened(f, path, max)
}

// ReadFileIn reads name inside root: symlinks that stay inside root are
// followed, any path that leaves it is refused (os.Root's rule). The file
// must be regular and at most max bytes.
func ReadFileIn(root *os.Root, name string, max int64) ([]byte, error) {
	f, err := root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpened(f, root.Name()+"/"+name, max)
}

func readOpened(f *os.File, path string, max int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := Regular(path, st.Mode()); err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, larger than %d: %w", path, st.Size(), max, ErrTooLarge)
	}
	// Regular files ignore O_NONBLOCK. The size is checked again while
	// reading: a file may grow after the Fstat, and sysfs attributes all
	// claim 4096 bytes whatever they hold.
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: %w", path, max, ErrTooLarge)
	}
	return b, nil
}

// Regular returns nil for a regular file's mode, else an error naming path
// and what it is instead, wrapping ErrNotRegular.
func Regular(path string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s: %w", path, Kind(m), ErrNotRegular)
}

// Kind names a file type for error messages.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}
