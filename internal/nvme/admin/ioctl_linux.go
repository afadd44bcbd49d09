//go:build linux

package admin

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// passthruCmd mirrors struct nvme_passthru_cmd (alias nvme_admin_cmd) in
// include/uapi/linux/nvme_ioctl.h: 72 bytes, no implicit padding on any
// Linux ABI Go supports. ioctl_layout_test.go pins every offset.
type passthruCmd struct {
	Opcode      uint8
	Flags       uint8
	Rsvd1       uint16
	NSID        uint32
	CDW2        uint32
	CDW3        uint32
	Metadata    uint64
	Addr        uint64
	MetadataLen uint32
	DataLen     uint32
	CDW10       uint32
	CDW11       uint32
	CDW12       uint32
	CDW13       uint32
	CDW14       uint32
	CDW15       uint32
	TimeoutMS   uint32
	Result      uint32
}

// nvmeIoctlAdminCmd is _IOWR('N', 0x41, struct nvme_admin_cmd).
const nvmeIoctlAdminCmd = 0xC0484E41

// adminTimeoutMS bounds one command; 0 would mean the driver default (60 s).
const adminTimeoutMS = 10000

type ioctlBackend struct {
	path string
	fd   int
}

// OpenIoctl opens a controller character device (e.g. /dev/nvme0) read-only
// and returns it behind the guard. Root needs no write access to send admin
// commands; an unprivileged caller gets EACCES per command instead.
func OpenIoctl(name, path string) (*Device, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return New(name, &ioctlBackend{path: path, fd: fd}), nil
}

func (b *ioctlBackend) Exec(ctx context.Context, cmd Command) (Result, error) {
	// Defence in depth: Device already refused these, but the syscall is here.
	if !Allowed(cmd.Opcode) {
		return Result{}, &RefusedError{Opcode: cmd.Opcode}
	}
	buf := make([]byte, cmd.DataLen)
	pc := passthruCmd{
		Opcode:    cmd.Opcode,
		NSID:      cmd.NSID,
		DataLen:   cmd.DataLen,
		CDW10:     cmd.CDW10,
		CDW11:     cmd.CDW11,
		CDW12:     cmd.CDW12,
		CDW13:     cmd.CDW13,
		CDW14:     cmd.CDW14,
		CDW15:     cmd.CDW15,
		TimeoutMS: adminTimeoutMS,
	}
	if len(buf) > 0 {
		pc.Addr = uint64(uintptr(unsafe.Pointer(&buf[0])))
	}
	r1, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(b.fd), nvmeIoctlAdminCmd, uintptr(unsafe.Pointer(&pc)))
	runtime.KeepAlive(buf)
	if errno != 0 {
		err := fmt.Errorf("%s: %s: ioctl: %w", b.path, cmd, errno)
		if errors.Is(errno, unix.EACCES) || errors.Is(errno, unix.EPERM) {
			err = fmt.Errorf("%w (admin passthrough needs CAP_SYS_ADMIN)", err)
		}
		return Result{}, err
	}
	if int(r1) > 0 {
		return Result{}, NewStatusError(cmd, uint16(r1))
	}
	return Result{Data: buf, DW0: pc.Result}, nil
}

func (b *ioctlBackend) Close() error { return unix.Close(b.fd) }
