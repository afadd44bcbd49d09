package simfs

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// checkDirs refuses what would make the mount hide files, land somewhere
// its configuration did not name, or hand out the backing files past the
// mount's permission checks. It returns the backing directory's stat.
func checkDirs(o Options) (syscall.Stat_t, error) {
	var st syscall.Stat_t
	for _, d := range []string{o.Backing, o.Mountpoint} {
		if err := syscall.Lstat(d, &st); err != nil {
			if errors.Is(err, syscall.ENOTCONN) {
				return st, fmt.Errorf("simfs: %s is a dead FUSE mount (a previous exporter was killed?): umount -l %s", d, d)
			}
			return st, fmt.Errorf("simfs: %s: %w", d, err)
		}
		if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
			return st, fmt.Errorf("simfs: %s is a symbolic link: give the directory itself", d)
		}
		if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			return st, fmt.Errorf("simfs: %s is not a directory", d)
		}
	}
	if err := emptyDir(o.Mountpoint); err != nil {
		return st, err
	}
	if err := private(o.Backing); err != nil {
		return st, err
	}
	err := syscall.Stat(o.Backing, &st)
	return st, err
}

// emptyDir refuses a mountpoint with files in it: the mount would hide them.
func emptyDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("simfs: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("simfs: %s: %w", dir, err)
	}
	return fmt.Errorf("simfs: the mountpoint %s is not empty (it holds %s): the mount would hide its files; give an empty directory", dir, names[0])
}

// private requires a directory only the exporter's user can enter on the
// backing directory's path (the backing directory itself or one above it:
// mode 0700 or less, owned by that user). Through the backing directory a
// file is not under the mount's checks: its setuid bit is honoured (no
// nosuid there) and its modes are the only guard.
func private(backing string) error {
	uid := uint32(os.Geteuid())
	var st syscall.Stat_t
	for d := filepath.Clean(backing); ; d = filepath.Dir(d) {
		if err := syscall.Stat(d, &st); err != nil {
			return fmt.Errorf("simfs: %w", err)
		}
		if st.Uid == uid && st.Mode&0o077 == 0 {
			return nil
		}
		if d == filepath.Dir(d) {
			return fmt.Errorf("simfs: other users can reach the backing directory %s, where the mount's checks do not apply (a setuid file there runs as its owner): make it, or a directory above it, mode 0700 and owned by uid %d", backing, uid)
		}
	}
}

// detachDead lazily unmounts every walabsim mount whose server is gone:
// an exporter killed with -9 leaves its mount behind, where every access
// fails with ENOTCONN ("Transport endpoint is not connected"). A live
// mount answers, and is left alone; one that does not answer within a few
// seconds too.
func detachDead(log *slog.Logger) {
	mounts, err := procfs.GetMounts()
	if err != nil {
		return
	}
	for _, m := range mounts {
		if m.FSType != FSType || !dead(m.MountPoint) {
			continue
		}
		if err := unix.Unmount(m.MountPoint, unix.MNT_DETACH); err != nil {
			log.Warn("simfs: a dead mount of an earlier exporter is left", "mountpoint", m.MountPoint, "err", err)
			continue
		}
		log.Info("simfs: unmounted the dead mount an earlier exporter left", "mountpoint", m.MountPoint)
	}
}

// dead reports whether the FUSE mount at dir has lost its server.
func dead(dir string) bool {
	res := make(chan error, 1)
	go func() {
		var st unix.Statfs_t
		res <- unix.Statfs(dir, &st)
	}()
	select {
	case err := <-res:
		return errors.Is(err, syscall.ENOTCONN)
	case <-time.After(3 * time.Second):
		return false
	}
}
