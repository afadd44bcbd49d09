package simfs

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// The loopback node's operations that resolve a path in the backing
// directory run with the caller's identity (asCaller); the ones on an
// open file's descriptor resolve nothing and run as the daemon.

var (
	_ fs.NodeLookuper       = (*node)(nil)
	_ fs.NodeMknoder        = (*node)(nil)
	_ fs.NodeMkdirer        = (*node)(nil)
	_ fs.NodeRmdirer        = (*node)(nil)
	_ fs.NodeSymlinker      = (*node)(nil)
	_ fs.NodeLinker         = (*node)(nil)
	_ fs.NodeReadlinker     = (*node)(nil)
	_ fs.NodeOpendirHandler = (*node)(nil)
	_ fs.NodeReaddirer      = (*node)(nil)
	_ fs.NodeGetattrer      = (*node)(nil)
	_ fs.NodeGetxattrer     = (*node)(nil)
	_ fs.NodeSetxattrer     = (*node)(nil)
	_ fs.NodeRemovexattrer  = (*node)(nil)
	_ fs.NodeListxattrer    = (*node)(nil)
	_ fs.NodeTmpfiler       = (*node)(nil)
	_ fs.NodeStatxer        = (*node)(nil)
)

// callerDo is asCaller for an operation that returns a value.
func callerDo[T any](ctx context.Context, op func() (T, syscall.Errno)) (T, syscall.Errno) {
	var v T
	errno := asCaller(ctx, func() syscall.Errno {
		var e syscall.Errno
		v, e = op()
		return e
	})
	return v, errno
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return callerDo(ctx, func() (*fs.Inode, syscall.Errno) { return n.LoopbackNode.Lookup(ctx, name, out) })
}

func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return callerDo(ctx, func() (*fs.Inode, syscall.Errno) { return n.LoopbackNode.Mknod(ctx, name, mode, rdev, out) })
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return callerDo(ctx, func() (*fs.Inode, syscall.Errno) { return n.LoopbackNode.Mkdir(ctx, name, mode, out) })
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	return asCaller(ctx, func() syscall.Errno { return n.LoopbackNode.Rmdir(ctx, name) })
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return callerDo(ctx, func() (*fs.Inode, syscall.Errno) { return n.LoopbackNode.Symlink(ctx, target, name, out) })
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return callerDo(ctx, func() (*fs.Inode, syscall.Errno) { return n.LoopbackNode.Link(ctx, target, name, out) })
}

func (n *node) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	return callerDo(ctx, func() ([]byte, syscall.Errno) { return n.LoopbackNode.Readlink(ctx) })
}

// dirHandle is the two results of OpendirHandle and Open.
type dirHandle struct {
	fh    fs.FileHandle
	flags uint32
}

func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	d, errno := callerDo(ctx, func() (dirHandle, syscall.Errno) {
		fh, ff, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
		return dirHandle{fh, ff}, errno
	})
	return d.fh, d.flags, errno
}

func (n *node) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return callerDo(ctx, func() (fs.DirStream, syscall.Errno) { return n.LoopbackNode.Readdir(ctx) })
}

// Getattr of an open file asks its descriptor; without one, the path.
func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if f != nil {
		return n.LoopbackNode.Getattr(ctx, f, out)
	}
	return asCaller(ctx, func() syscall.Errno { return n.LoopbackNode.Getattr(ctx, nil, out) })
}

func (n *node) Statx(ctx context.Context, f fs.FileHandle, flags, mask uint32, out *fuse.StatxOut) syscall.Errno {
	if f != nil {
		return n.LoopbackNode.Statx(ctx, f, flags, mask, out)
	}
	return asCaller(ctx, func() syscall.Errno { return n.LoopbackNode.Statx(ctx, nil, flags, mask, out) })
}

// xattrs refuses extended attributes: ENOSYS makes the kernel stop
// asking (EOPNOTSUPP to every caller from then on, without a round trip).
// Without it the kernel asks for security.capability before every write
// (file_remove_privs), a third FUSE round trip beside the write and its
// fsync. Nothing walab serves needs them: file capabilities do not work
// on a nosuid mount, and the mount enforces no POSIX ACLs. The loopback's
// own xattr calls, which act as the daemon, are never reached.
func xattrs() syscall.Errno { return syscall.ENOSYS }

func (n *node) Getxattr(context.Context, string, []byte) (uint32, syscall.Errno) {
	return 0, xattrs()
}
func (n *node) Setxattr(context.Context, string, []byte, uint32) syscall.Errno { return xattrs() }
func (n *node) Removexattr(context.Context, string) syscall.Errno              { return xattrs() }
func (n *node) Listxattr(context.Context, []byte) (uint32, syscall.Errno)      { return 0, xattrs() }

// tmpfile is the results of Tmpfile and Create.
type tmpfile struct {
	ch    *fs.Inode
	fh    fs.FileHandle
	flags uint32
}

func (n *node) Tmpfile(ctx context.Context, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	t, errno := callerDo(ctx, func() (tmpfile, syscall.Errno) {
		ch, fh, ff, errno := n.LoopbackNode.Tmpfile(ctx, flags, mode, out)
		return tmpfile{ch, fh, ff}, errno
	})
	return t.ch, t.fh, t.flags, errno
}
