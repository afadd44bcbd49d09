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
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
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
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f, path, max)
}

// ReadUserFile reads path as ReadFile does, but follows a symlink: for a
// file the user names on the command line (an experiment plan), whose
// links are the user's own. A FIFO or a device is still refused unread.
func ReadUserFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	if f, err = regularOnly(f, path); err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f, path, max)
}

// ReadFileIn reads name inside root (see OpenIn); at most max bytes.
func ReadFileIn(root *os.Root, name string, max int64) ([]byte, error) {
	f, err := OpenIn(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f, f.Name(), max)
}

// Open opens path for reading; it must be a regular file and not a symlink.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, openFlags|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symlink; refusing to follow it: %w", path, ErrNotRegular)
		}
		return nil, err
	}
	return regularOnly(f, path)
}

// OpenIn opens name inside root for reading: symlinks that stay inside
// root are followed, any path that leaves it is refused (os.Root's rule),
// and the file must be regular. The file's Name is root/name.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	f, err := root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, err
	}
	return regularOnly(f, root.Name()+"/"+name)
}

func regularOnly(f *os.File, path string) (*os.File, error) {
	st, err := f.Stat()
	if err == nil {
		err = Regular(path, st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readCapped reads f whole, refusing more than max bytes. The size is
// checked before (Fstat) and while reading: a file may grow after the
// Fstat, and sysfs attributes all claim 4096 bytes whatever they hold.
func readCapped(f *os.File, path string, max int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, larger than %d: %w", path, st.Size(), max, ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: %w", path, max, ErrTooLarge)
	}
	return b, nil
}

// MaxText is the length CleanText keeps: NVMe identity strings are at most
// 40 bytes (model), 20 (serial) and 8 (firmware).
const MaxText = 64

// CleanText makes a label value of an identity string read from a file or
// a device: padding (spaces, newlines, NULs) trimmed, invalid UTF-8 and
// control characters replaced by '?', cut to MaxText bytes on a character
// boundary.
func CleanText(b []byte) string {
	s := strings.ToValidUTF8(strings.Trim(string(b), " \t\r\n\x00"), "?")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
	if len(s) <= MaxText {
		return s
	}
	cut := MaxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
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

// WriteAtomic replaces path so that a reader (or a crash) sees either the
// old or the new content, never a mix: temp file in the same directory,
// fsync, rename over the target, fsync the directory so the rename itself
// survives a power cut. afterWrite, when set (tests), runs after the data
// is written to the temp file and before it is synced and renamed; its
// error aborts the write.
func WriteAtomic(path string, data []byte, afterWrite func(tmp string) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if afterWrite != nil {
		if err = afterWrite(tmp); err != nil {
			return err
		}
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open %s to sync the rename: %w", dir, err)
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
