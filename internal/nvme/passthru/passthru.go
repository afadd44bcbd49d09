// Package passthru sends raw NVMe commands through the Linux passthrough
// ioctls: the QEMU test's guest tools and the filesystem's device backend
// (internal/simfs/device, writes and deallocates the user configured). It
// lays out struct nvme_passthru_cmd itself, independently of
// internal/nvme/admin, so what the test tools read is a second path to the
// controller, not walab's own code read twice; the exporter's collectors
// never import it (admin's read-only allowlist is theirs).
package passthru

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The ioctl numbers: _IOWR('N', 0x41 / 0x43, struct nvme_passthru_cmd).
const (
	AdminCmd = 0xC0484E41 // NVME_IOCTL_ADMIN_CMD
	IOCmd    = 0xC0484E43 // NVME_IOCTL_IO_CMD
	NSID     = 0x00004E40 // NVME_IOCTL_ID: _IO('N', 0x40), the namespace id of a block device
)

// Cmd is one command: opcode, namespace, data buffer and dwords 10-15.
type Cmd struct {
	Opcode uint8
	NSID   uint32
	Data   []byte
	CDW    [6]uint32 // CDW10 .. CDW15
}

// Send issues c through ioctl request req on fd. It returns the
// completion's dword 0; a non-zero NVMe status or an errno is an error.
func Send(fd int, req uintptr, c Cmd) (uint32, error) {
	var raw [72]byte // struct nvme_passthru_cmd
	le := binary.LittleEndian
	raw[0] = c.Opcode
	le.PutUint32(raw[4:], c.NSID)
	if len(c.Data) > 0 {
		le.PutUint64(raw[24:], uint64(uintptr(unsafe.Pointer(&c.Data[0]))))
		le.PutUint32(raw[36:], uint32(len(c.Data)))
	}
	for i, v := range c.CDW {
		le.PutUint32(raw[40+4*i:], v)
	}
	status, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(&raw[0])))
	runtime.KeepAlive(c.Data)
	switch {
	case errno != 0:
		return 0, fmt.Errorf("opcode 0x%02x: ioctl: %w", c.Opcode, errno)
	case status != 0:
		return 0, fmt.Errorf("opcode 0x%02x: NVMe status 0x%04x", c.Opcode, status)
	}
	return le.Uint32(raw[68:]), nil
}
