//go:build unix

package wa

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/walab/walab/internal/safefile"
)

// lockState takes an exclusive, non-blocking flock on path+".lock" for as
// long as the sampler lives, so a second exporter configured with the same
// state file refuses to start instead of overwriting the first one's
// history. The lock file is never removed (removing it would let two
// processes lock two different inodes). A state directory that cannot be
// written is not an error here: nothing can be overwritten in it, and the
// save failures are counted where they happen.
func lockState(path string, warn func(msg string, args ...any)) (*os.File, error) {
	lp := path + ".lock"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		warn("cannot create the write-amplification state directory; running without the state-file lock", "path", lp, "err", err)
		return nil, nil
	}
	flags := syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE|flags, 0o644)
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EPERM) {
		// Read-only directory: an existing lock file can still be locked.
		f, err = os.OpenFile(lp, os.O_RDONLY|flags, 0)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.EACCES) {
			warn("write-amplification state directory is not writable; running without the state-file lock", "path", lp)
			return nil, nil
		}
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, &ForeignFileError{Path: lp, Err: fmt.Errorf("%s is a symlink: %w", lp, safefile.ErrNotRegular)}
	}
	if err != nil {
		return nil, fmt.Errorf("wa: state lock %s: %w", lp, err)
	}
	st, err := f.Stat()
	if err == nil {
		err = safefile.Regular(lp, st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, &ForeignFileError{Path: lp, Err: err}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("wa: state file %s is in use by another exporter (lock %s held); give each exporter its own wa.state_file", path, lp)
		}
		return nil, fmt.Errorf("wa: lock %s: %w", lp, err)
	}
	return f, nil
}
