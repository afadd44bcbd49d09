// Package uring is the part of Linux's io_uring that loadgen fileio's
// async mode needs: one ring per thread, reads and writes at an offset
// (IORING_OP_READ/WRITE, Linux 5.6+), submitted one at a time and reaped
// as they complete. It is written against the kernel's ABI
// (include/uapi/linux/io_uring.h) with golang.org/x/sys: no Go io_uring
// library is served by the module proxy this project builds from
// (giouring, iouring-go and go-uring were refused), and liburing would
// need cgo.
package uring

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// params is struct io_uring_params: the setup's input and the rings'
// offsets in its output (sqOff: head, tail, ring_mask, ring_entries,
// flags, dropped, array, resv1, user_addr; cqOff: head, tail, ring_mask,
// ring_entries, overflow, cqes, flags, resv1, user_addr).
type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  [10]uint32
	cqOff                                                                  [10]uint32
}

// sqe is struct io_uring_sqe (64 bytes).
type sqe struct {
	opcode   uint8
	flags    uint8
	ioprio   uint16
	fd       int32
	off      uint64
	addr     uint64
	len      uint32
	rwFlags  uint32
	userData uint64
	_        [3]uint64
}

// cqe is struct io_uring_cqe (16 bytes).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

const (
	opRead  = 22 // IORING_OP_READ
	opWrite = 23 // IORING_OP_WRITE

	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000

	enterGetEvents = 1
)

// Ring is one io_uring. Not safe for concurrent use: one per thread.
type Ring struct {
	fd             int
	sqMem, cqMem   []byte
	sqeMem         []byte
	sqHead, sqTail *uint32
	sqMask         uint32
	sqArray        unsafe.Pointer
	sqes           unsafe.Pointer
	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           unsafe.Pointer
	entries        uint32
	inFlight       int
}

// Completion is one finished request: what the submitter tagged it with,
// and the bytes moved (a negative errno on failure).
type Completion struct {
	Tag uint64
	Res int32
}

// New sets up a ring of entries slots (a power of two is not needed: the
// kernel rounds up).
func New(entries int) (*Ring, error) {
	var p params
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup(%d): %w", entries, errno)
	}
	r := &Ring{fd: int(fd), entries: p.sqEntries}
	if err := r.mmap(&p); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Ring) mmap(p *params) error {
	var err error
	sqSize := int(p.sqOff[6] + p.sqEntries*4)
	cqSize := int(p.cqOff[5] + p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	flags := unix.MAP_SHARED | unix.MAP_POPULATE
	if r.sqMem, err = unix.Mmap(r.fd, offSQRing, sqSize, unix.PROT_READ|unix.PROT_WRITE, flags); err != nil {
		return fmt.Errorf("io_uring: map the submission ring: %w", err)
	}
	if r.cqMem, err = unix.Mmap(r.fd, offCQRing, cqSize, unix.PROT_READ|unix.PROT_WRITE, flags); err != nil {
		return fmt.Errorf("io_uring: map the completion ring: %w", err)
	}
	if r.sqeMem, err = unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, flags); err != nil {
		return fmt.Errorf("io_uring: map the submission entries: %w", err)
	}
	sq, cq := unsafe.Pointer(&r.sqMem[0]), unsafe.Pointer(&r.cqMem[0])
	r.sqHead, r.sqTail = (*uint32)(unsafe.Add(sq, p.sqOff[0])), (*uint32)(unsafe.Add(sq, p.sqOff[1]))
	r.sqMask = *(*uint32)(unsafe.Add(sq, p.sqOff[2]))
	r.sqArray = unsafe.Add(sq, p.sqOff[6])
	r.sqes = unsafe.Pointer(&r.sqeMem[0])
	r.cqHead, r.cqTail = (*uint32)(unsafe.Add(cq, p.cqOff[0])), (*uint32)(unsafe.Add(cq, p.cqOff[1]))
	r.cqMask = *(*uint32)(unsafe.Add(cq, p.cqOff[2]))
	r.cqes = unsafe.Add(cq, p.cqOff[5])
	return nil
}

// InFlight is the number of requests submitted and not yet reaped.
func (r *Ring) InFlight() int { return r.inFlight }

// Read submits a read of len(buf) bytes of fd at off. buf must stay valid
// and unmoved until its completion is reaped: memory from mmap, not the
// Go heap.
func (r *Ring) Read(fd int, buf []byte, off int64, tag uint64) error {
	return r.submit(opRead, fd, buf, off, tag)
}

// Write submits a write of buf to fd at off (see Read for buf).
func (r *Ring) Write(fd int, buf []byte, off int64, tag uint64) error {
	return r.submit(opWrite, fd, buf, off, tag)
}

func (r *Ring) submit(op uint8, fd int, buf []byte, off int64, tag uint64) error {
	if r.inFlight >= int(r.entries) {
		return errors.New("io_uring: ring full: reap before submitting")
	}
	tail := *r.sqTail
	i := tail & r.sqMask
	e := (*sqe)(unsafe.Add(r.sqes, uintptr(i)*unsafe.Sizeof(sqe{})))
	*e = sqe{opcode: op, fd: int32(fd), off: uint64(off), addr: uint64(uintptr(unsafe.Pointer(&buf[0]))), len: uint32(len(buf)), userData: tag}
	*(*uint32)(unsafe.Add(r.sqArray, uintptr(i)*4)) = i
	atomic.StoreUint32(r.sqTail, tail+1)
	if _, err := r.enter(1, 0, 0); err != nil {
		return err
	}
	r.inFlight++
	return nil
}

// Reap returns the completions there are, after waiting for at least
// min of them.
func (r *Ring) Reap(min int) ([]Completion, error) {
	var out []Completion
	for {
		head, tail := *r.cqHead, atomic.LoadUint32(r.cqTail)
		for ; head != tail; head++ {
			c := (*cqe)(unsafe.Add(r.cqes, uintptr(head&r.cqMask)*unsafe.Sizeof(cqe{})))
			out = append(out, Completion{Tag: c.userData, Res: c.res})
			r.inFlight--
		}
		atomic.StoreUint32(r.cqHead, head)
		if len(out) >= min {
			return out, nil
		}
		if _, err := r.enter(0, uint32(min-len(out)), enterGetEvents); err != nil {
			return out, err
		}
	}
}

func (r *Ring) enter(submit, minComplete, flags uint32) (int, error) {
	for {
		n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(submit), uintptr(minComplete), uintptr(flags), 0, 0)
		switch errno {
		case 0:
			return int(n), nil
		case unix.EINTR, unix.EAGAIN, unix.EBUSY:
			continue
		}
		return 0, fmt.Errorf("io_uring_enter: %w", errno)
	}
}

// Close waits for the requests in flight (their buffers must outlive
// them) and releases the ring.
func (r *Ring) Close() error {
	var err error
	if r.inFlight > 0 && r.cqTail != nil {
		_, err = r.Reap(r.inFlight)
	}
	for _, m := range [][]byte{r.sqeMem, r.cqMem, r.sqMem} {
		if m != nil {
			_ = unix.Munmap(m)
		}
	}
	r.sqeMem, r.cqMem, r.sqMem = nil, nil, nil
	if r.fd > 0 {
		err = errors.Join(err, unix.Close(r.fd))
		r.fd = -1
	}
	return err
}
