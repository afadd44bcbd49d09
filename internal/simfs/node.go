package simfs

import (
	"context"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/simfs/alloc"
)

// node is a loopback node that tells the allocator about names, opens,
// truncates, unlinks and renames.
type node struct {
	fs.LoopbackNode
	fs *FS
}

var (
	_ fs.NodeOpener         = (*node)(nil)
	_ fs.NodeCreater        = (*node)(nil)
	_ fs.NodeUnlinker       = (*node)(nil)
	_ fs.NodeRenamer        = (*node)(nil)
	_ fs.NodeSetattrer      = (*node)(nil)
	_ fs.NodeCopyFileRanger = (*node)(nil)
	_ fs.NodeStatfser       = (*node)(nil)
)

// rel is the node's path inside the filesystem.
func (n *node) rel() string { return n.Path(n.Root()) }

func (n *node) backing(name string) string {
	return filepath.Join(n.RootData.Path, n.rel(), name)
}

// ino is the allocator's key: the backing inode (one backing filesystem,
// so go-fuse's inode number is the backing one).
func ino(i *fs.Inode) alloc.File { return alloc.File(i.StableAttr().Ino) }

// noDirect drops O_DIRECT before the backing file is opened: the kernel
// already sends an O_DIRECT file's writes straight to this filesystem, in
// the caller's sizes; the backing file goes through the page cache and
// fsync makes it durable (go-fuse's buffers are not aligned for O_DIRECT).
func noDirect(flags uint32) uint32 { return flags &^ syscall.O_DIRECT }

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	d, errno := callerDo(ctx, func() (dirHandle, syscall.Errno) {
		fh, ff, errno := n.LoopbackNode.Open(ctx, noDirect(flags))
		return dirHandle{fh, ff}, errno
	})
	fh, ff := d.fh, d.flags
	if errno != 0 {
		return nil, 0, errno
	}
	id := ino(n.EmbeddedInode())
	n.fs.setName(id, n.rel())
	return &handle{lf: fh.(*fs.LoopbackFile), fs: n.fs, ino: id}, ff, 0
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	t, errno := callerDo(ctx, func() (tmpfile, syscall.Errno) {
		ch, fh, ff, errno := n.LoopbackNode.Create(ctx, name, noDirect(flags), mode, out)
		return tmpfile{ch, fh, ff}, errno
	})
	ch, fh, ff := t.ch, t.fh, t.flags
	if errno != 0 {
		return nil, nil, 0, errno
	}
	id := ino(ch)
	n.fs.setName(id, filepath.Join(n.rel(), name))
	return ch, &handle{lf: fh.(*fs.LoopbackFile), fs: n.fs, ino: id}, ff, 0
}

// lastLink is the backing inode of name when unlinking or replacing it
// frees its data (a regular file with one link).
func (n *node) lastLink(name string) (alloc.File, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(n.backing(name), &st); err != nil {
		return 0, false
	}
	return alloc.File(st.Ino), st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Nlink == 1
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	var id alloc.File
	var last bool
	if errno := asCaller(ctx, func() syscall.Errno {
		id, last = n.lastLink(name)
		return n.LoopbackNode.Unlink(ctx, name)
	}); errno != 0 {
		return errno
	}
	if last {
		n.fs.withAlloc(id, func(a *alloc.Allocator) []alloc.Ext { return a.Remove(id) })
	}
	return 0
}

// Rename renames; a regular file it replaces loses its pages (TRIM), and
// the moved file's class and stream follow its new name.
func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*node)
	if !ok {
		return syscall.EXDEV
	}
	var src, victim alloc.File
	var last bool
	if errno := asCaller(ctx, func() syscall.Errno {
		src, _ = n.lastLink(name)
		victim, last = np.lastLink(newName)
		return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
	}); errno != 0 {
		return errno
	}
	const exchange = 2 // RENAME_EXCHANGE
	if last && victim != src && flags&exchange == 0 {
		n.fs.withAlloc(victim, func(a *alloc.Allocator) []alloc.Ext { return a.Remove(victim) })
	}
	n.fs.setName(src, filepath.Join(np.rel(), newName))
	if flags&exchange != 0 {
		n.fs.setName(victim, filepath.Join(n.rel(), name))
	}
	return 0
}

// Setattr truncates (and chmods, chowns, sets times) through the loopback
// node; a shrink frees the pages past the new size.
func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if errno := n.setattr(ctx, f, in, out); errno != 0 {
		return errno
	}
	if size, ok := in.GetSize(); ok {
		id := ino(n.EmbeddedInode())
		n.fs.withAlloc(id, func(a *alloc.Allocator) []alloc.Ext { return a.Truncate(id, size) })
	}
	return 0
}

// CopyFileRange is refused: the kernel then copies with reads and writes,
// which this filesystem sees.
func (n *node) CopyFileRange(context.Context, fs.FileHandle, uint64, *fs.Inode, fs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, syscall.ENOSYS
}

// Statfs reports the simulated drive (df, MariaDB, walab's free_space
// check see it, not the backing disk): its logical pages as the blocks,
// the pages no file holds as free (fallocate's reservations are held),
// bounded by what the backing filesystem can still take. The inode
// counts are the backing filesystem's.
func (n *node) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	if errno := asCaller(ctx, func() syscall.Errno { return n.LoopbackNode.Statfs(ctx, out) }); errno != 0 {
		return errno
	}
	bs := uint64(out.Frsize)
	if bs == 0 {
		bs = uint64(out.Bsize)
	}
	n.fs.mu.Lock()
	ps, total, free := n.fs.al.PageSize(), uint64(n.fs.opts.LogicalPages), uint64(n.fs.al.FreePages())
	n.fs.mu.Unlock()
	out.Bfree = min(free, out.Bfree*bs/ps)
	out.Bavail = min(free, out.Bavail*bs/ps)
	out.Blocks, out.Bsize, out.Frsize = total, uint32(ps), uint32(ps)
	return 0
}

// setattr changes an open file through its descriptor (the kernel checked
// the change against the inode it names), any other by path with the
// caller's identity. A caller's EPERM that only clears setuid or setgid
// bits is the kernel's own clearing after another user's write, which a
// real filesystem does whatever the writer's rights: killPriv.
func (n *node) setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if _, ok := f.(fs.FileSetattrer); ok {
		return n.LoopbackNode.Setattr(ctx, f, in, out)
	}
	errno := asCaller(ctx, func() syscall.Errno { return n.LoopbackNode.Setattr(ctx, nil, in, out) })
	const others = fuse.FATTR_FH | fuse.FATTR_LOCKOWNER | fuse.FATTR_KILL_SUIDGID | fuse.FATTR_CTIME
	if errno == syscall.EPERM && in.Valid&^others == fuse.FATTR_MODE {
		return n.killPriv(ctx, in.Mode&0o7777, out)
	}
	return errno
}

// killPriv sets the mode as the daemon if it only clears setuid and setgid
// bits of the very inode the kernel named: the caller resolves the path
// (O_PATH, no symlink followed), its inode must be this node's, and the
// daemon changes it through that descriptor.
func (n *node) killPriv(ctx context.Context, mode uint32, out *fuse.AttrOut) syscall.Errno {
	fd := -1
	var st syscall.Stat_t
	errno := asCaller(ctx, func() syscall.Errno {
		var err error
		if fd, err = unix.Open(n.backing(""), unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
			return fs.ToErrno(err)
		}
		return fs.ToErrno(syscall.Fstat(fd, &st))
	})
	if fd >= 0 {
		defer unix.Close(fd)
	}
	if errno != 0 {
		return syscall.EPERM
	}
	cur := st.Mode & 0o7777
	cleared := cur &^ mode
	if st.Ino != n.StableAttr().Ino || cur&^cleared != mode || cleared == 0 || cleared&^(syscall.S_ISUID|syscall.S_ISGID) != 0 {
		return syscall.EPERM
	}
	proc := "/proc/self/fd/" + strconv.Itoa(fd)
	if err := syscall.Chmod(proc, mode); err != nil {
		return fs.ToErrno(err)
	}
	if err := syscall.Fstat(fd, &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	return 0
}
