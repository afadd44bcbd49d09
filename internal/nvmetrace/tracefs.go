package nvmetrace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// tracefsMu serializes the tracers' opening, so one does not unmount a
// tracefs the other is reading.
var tracefsMu sync.Mutex

// withTracefs runs fn, which reads event formats and ids under dir, with
// tracefs there: as it is mounted, or, where nothing is mounted at dir
// and it is an empty directory, mounted by this process for fn's time
// (mount(2) of tracefs needs CAP_SYS_ADMIN) and unmounted after, leaving
// the mounts as they were: an attached tracer needs tracefs no longer.
// Mounted without options: tracefs is one superblock, and options would
// change its owner and mode wherever it is mounted.
func withTracefs(dir string, fn func() error) error {
	tracefsMu.Lock()
	defer tracefsMu.Unlock()
	_, err := os.Stat(filepath.Join(dir, "events"))
	switch {
	case err == nil:
		return fn()
	case errors.Is(err, os.ErrPermission):
		return unreadable(dir, err)
	}
	if err := mountTracefs(dir); err != nil {
		return err
	}
	defer unix.Unmount(dir, unix.MNT_DETACH) //nolint:errcheck // ours, and unused once attached
	if _, err := os.Stat(filepath.Join(dir, "events")); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return unreadable(dir, err)
		}
		return &Error{ReasonNoTracefs, fmt.Errorf("tracefs mounted at %s has no events/: %w", dir, err)}
	}
	return fn()
}

// unreadable is the error for a tracefs this user may not read.
func unreadable(dir string, err error) error {
	return &Error{ReasonTracefsPermission, fmt.Errorf("tracefs at %s is root's (mode 0700) and this process may not read it "+
		"(%w): the event formats need root or CAP_DAC_READ_SEARCH", dir, err)}
}

// mountTracefs mounts tracefs on dir, an empty directory; never over
// anything.
func mountTracefs(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return &Error{ReasonNoTracefs, fmt.Errorf("tracefs is not mounted at %s: %w", dir, err)}
	}
	if len(ents) > 0 {
		return &Error{ReasonNoTracefs, fmt.Errorf("%s is neither tracefs (no events/) nor empty: tracefs is not mounted over it", dir)}
	}
	err = unix.Mount("tracefs", dir, "tracefs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return &Error{ReasonTracefsPermission, fmt.Errorf("tracefs is not mounted at %s and mounting it was refused (%w): "+
			"mount(2) needs CAP_SYS_ADMIN in the host's user and mount namespaces and no seccomp filter on mount; or mount it at boot (systemd's sys-kernel-tracing.mount)", dir, err)}
	case errors.Is(err, unix.ENODEV):
		return &Error{ReasonNoTracefs, fmt.Errorf("tracefs is not mounted at %s and this kernel has no tracefs (%w)", dir, err)}
	}
	return &Error{ReasonNoTracefs, fmt.Errorf("tracefs is not mounted at %s and mounting it failed: %w", dir, err)}
}
