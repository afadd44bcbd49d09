package simfs

import (
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/simfs/alloc"
	"github.com/walab/walab/internal/simfs/fileclass"
)

// Drive receives the filesystem's host writes and TRIMs (a *sim.Drive).
type Drive interface {
	HostWrite(name string, class fileclass.Class, lpn, pages uint32) error
	HostTrim(lpn, pages uint32) error
	// FeedFailed is called once when the filesystem stops serving without
	// Unmount: the drive no longer sees the writes.
	FeedFailed(err error)
}

// FSType is the mount's type as /proc/mounts shows it.
const FSType = "fuse.walabsim"

// Options configure Mount.
type Options struct {
	Backing, Mountpoint string
	Drive               Drive
	LogicalPages        uint32 // the drive's logical space
	PageSize            uint32 // its page (LBA) size
	// NoDiscard frees the pages of unlink, truncate and punch-hole for
	// the filesystem's reuse without telling the drive (no TRIM): the
	// drive keeps them valid until they are written again, as under a
	// filesystem mounted without the discard option (XFS's and ext4's
	// default).
	NoDiscard bool
	// AllowOther lets users other than the exporter's reach the mount
	// (another user's mysqld); the kernel still checks every access
	// against the files' modes and owners, and the daemon acts on the
	// backing directory with the caller's identity.
	AllowOther bool
	Logger     *slog.Logger
}

// FS is a mounted filesystem.
type FS struct {
	opts   Options
	server *fuse.Server
	done   chan struct{}
	rootFd int // the backing directory (O_PATH), which the loopback's paths start from

	mu        sync.Mutex
	al        *alloc.Allocator
	classes   fileclass.Memo // the files' classes, matched once per name
	st        [len7]ClassStats
	driveErr  error // the first error the drive returned
	unmounted bool  // Unmount was called
	stopped   bool  // the server loop returned
}

const len7 = 7 // len(fileclass.Names)

var _ = [1]struct{}{}[len(fileclass.Names)-len7] // len7 follows fileclass.Names

// Mount mounts the backing directory at the mountpoint and serves it until
// Unmount. It needs root (or fusermount3) and /dev/fuse.
func Mount(o Options) (*FS, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	al, err := alloc.New(o.LogicalPages, o.PageSize)
	if err != nil {
		return nil, err
	}
	detachDead(o.Logger)
	st, err := checkDirs(o)
	if err != nil {
		return nil, err
	}
	f := &FS{opts: o, al: al, done: make(chan struct{})}
	if err := f.adopt(); err != nil {
		return nil, err
	}
	// The loopback resolves every path under the backing directory's
	// descriptor, through /proc/self/fd: a caller's identity (asCaller)
	// needs no search right on the directories above it, which are
	// private (checkDirs).
	rootFd, err := unix.Open(o.Backing, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("simfs: %s: %w", o.Backing, err)
	}
	f.rootFd = rootFd
	root := &fs.LoopbackRoot{Path: "/proc/self/fd/" + strconv.Itoa(rootFd), Dev: uint64(st.Dev)}
	root.NewNode = func(r *fs.LoopbackRoot, _ *fs.Inode, _ string, _ *syscall.Stat_t) fs.InodeEmbedder {
		return &node{LoopbackNode: fs.LoopbackNode{RootData: r}, fs: f}
	}
	root.RootNode = root.NewNode(root, nil, "", &st)
	timeout := time.Second
	f.server, err = fs.Mount(o.Mountpoint, root.RootNode, &fs.Options{
		MountOptions: fuse.MountOptions{
			// The kernel checks every access against the files' modes and
			// owners (default_permissions); the daemon resolves the backing
			// paths with the caller's identity (asCaller). nosuid and nodev are go-fuse's
			// default for a direct mount; named so no change of it drops them.
			Options:    []string{"default_permissions", "nosuid", "nodev"},
			AllowOther: o.AllowOther, FsName: o.Backing, Name: "walabsim", DirectMount: true,
			MaxWrite: 512 << 10, // below the 1 MiB pipe go-fuse splices reads through
		},
		EntryTimeout: &timeout, AttrTimeout: &timeout,
	})
	if err != nil {
		unix.Close(rootFd)
		return nil, fmt.Errorf("simfs: mount %s on %s: %w", o.Backing, o.Mountpoint, err)
	}
	go f.watch()
	return f, nil
}

// watch waits for the server loop to end; if nobody called Unmount, the
// mount died (killed, aborted, unmounted from outside) and the drive is told.
func (f *FS) watch() {
	f.server.Wait()
	unix.Close(f.rootFd)
	f.mu.Lock()
	f.stopped = true
	external := !f.unmounted
	f.mu.Unlock()
	if external {
		err := fmt.Errorf("simfs: the FUSE mount at %s stopped serving", f.opts.Mountpoint)
		f.opts.Logger.Error("simulated drive's filesystem stopped: the drive no longer sees the database's writes", "mountpoint", f.opts.Mountpoint)
		f.opts.Drive.FeedFailed(err)
	}
	close(f.done)
}

// Done is closed when the filesystem stops serving.
func (f *FS) Done() <-chan struct{} { return f.done }

// Unmount unmounts the filesystem. If a process still holds files open,
// the mount is detached lazily: it vanishes from the namespace at once and
// the kernel ends it when the last file is closed.
func (f *FS) Unmount() error {
	f.mu.Lock()
	f.unmounted = true
	f.mu.Unlock()
	err := f.server.Unmount()
	if err != nil {
		if derr := unix.Unmount(f.opts.Mountpoint, unix.MNT_DETACH); derr != nil {
			return fmt.Errorf("simfs: unmount %s: %w (lazy unmount: %v)", f.opts.Mountpoint, err, derr)
		}
		f.opts.Logger.Warn("simfs: files still open on the mount; detached it lazily", "mountpoint", f.opts.Mountpoint, "err", err)
		return nil
	}
	<-f.done
	return nil
}

// Mountpoint is where the filesystem is mounted.
func (f *FS) Mountpoint() string { return f.opts.Mountpoint }
