package simfs

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/simfs/alloc"
)

// handle is an open file: the loopback file, with writes, fsyncs and
// fallocates reported. It deliberately has no PassthroughFd, so the kernel
// never bypasses this filesystem for its reads and writes.
type handle struct {
	lf  *fs.LoopbackFile
	fs  *FS
	ino alloc.File
}

var (
	_ fs.FileWriter    = (*handle)(nil)
	_ fs.FileReader    = (*handle)(nil)
	_ fs.FileFsyncer   = (*handle)(nil)
	_ fs.FileAllocater = (*handle)(nil)
	_ fs.FileReleaser  = (*handle)(nil)
	_ fs.FileFlusher   = (*handle)(nil)
	_ fs.FileGetattrer = (*handle)(nil)
	_ fs.FileSetattrer = (*handle)(nil)
	_ fs.FileLseeker   = (*handle)(nil)
)

// Write allocates the pages first (a full drive is ENOSPC and the backing
// file is untouched), writes the backing file, then reports the bytes it
// took to the drive. A failed write counts nothing and gives its new pages
// back (go-fuse's loopback returns uint32(-1) bytes with the error).
func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	p, errno := h.fs.prepare(h.ino, uint64(off), uint64(len(data)))
	if errno != 0 {
		return 0, errno
	}
	n, errno := h.lf.Write(ctx, data, off)
	if errno != 0 || int(n) > len(data) {
		n = 0
	}
	h.fs.wrote(h.ino, uint64(off), uint64(n), p)
	return n, errno
}

// fsyncDatasync is FSYNC's flag for fdatasync.
const fsyncDatasync = 1

// Fsync is fsync, or fdatasync on the backing file when the caller asked
// for fdatasync (the loopback's would be a full fsync, which also writes
// the inode's timestamps out: an extra backing write per InnoDB flush).
// Both count as the class's fsyncs.
func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	var errno syscall.Errno
	if flags&fsyncDatasync == 0 {
		errno = h.lf.Fsync(ctx, flags)
	} else if fd, ok := h.lf.PassthroughFd(); !ok {
		errno = syscall.EBADF
	} else {
		// fd stays open until Release, which the kernel never sends
		// while an FSYNC on the same handle is pending.
		errno = fs.ToErrno(unix.Fdatasync(fd))
	}
	if errno == 0 {
		h.fs.fsynced(h.ino)
	}
	return errno
}

const fallocPunchHole = 0x02 // FALLOC_FL_PUNCH_HOLE

// Allocate is fallocate: a punch-hole frees (TRIMs) the pages wholly
// inside the range; the other modes reserve pages without writing them,
// as a filesystem's unwritten extents, and give them back if the backing
// filesystem refuses.
func (h *handle) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	if mode&fallocPunchHole != 0 {
		errno := h.lf.Allocate(ctx, off, size, mode)
		if errno == 0 {
			h.fs.withAlloc(h.ino, func(a *alloc.Allocator) []alloc.Ext { return a.Punch(h.ino, off, size) })
		}
		return errno
	}
	p, errno := h.fs.prepare(h.ino, off, size)
	if errno != 0 {
		return errno
	}
	if errno = h.lf.Allocate(ctx, off, size, mode); errno != 0 {
		h.fs.unreserve(p) // the backing filesystem refused: nothing reserved
	}
	return errno
}

// Release closes the backing file; a file unlinked while open loses the
// pages it was given after the unlink.
func (h *handle) Release(ctx context.Context) syscall.Errno {
	gone := false
	if a := (fuse.AttrOut{}); h.lf.Getattr(ctx, &a) == 0 {
		gone = a.Nlink == 0
	}
	if gone {
		h.fs.withAlloc(h.ino, func(a *alloc.Allocator) []alloc.Ext { return a.Remove(h.ino) })
	}
	return h.lf.Release(ctx)
}

func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return h.lf.Read(ctx, dest, off)
}
func (h *handle) Flush(ctx context.Context) syscall.Errno { return h.lf.Flush(ctx) }
func (h *handle) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	return h.lf.Getattr(ctx, out)
}
func (h *handle) Setattr(ctx context.Context, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return h.lf.Setattr(ctx, in, out)
}
func (h *handle) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	return h.lf.Lseek(ctx, off, whence)
}
