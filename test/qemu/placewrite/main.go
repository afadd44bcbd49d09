// Command placewrite runs inside the QEMU test's virtual machine and sends
// NVMe Write commands that carry a directive (streams or data placement)
// through the kernel's I/O passthrough ioctl, NVME_IOCTL_IO_CMD, on a
// namespace's block device: the nvme:nvme_setup_cmd tracepoint sees them
// as the kernel sends them, whatever the emulated controller answers.
// It is a test tool: walab's exporter never sends I/O commands.
//
//	placewrite -dev /dev/nvme0n1 -nsid 1 -dtype 2 -dspec 5 -n 16 -slba 4096
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// nvmeIoctlIOCmd is _IOWR('N', 0x43, struct nvme_passthru_cmd) (72 bytes).
const nvmeIoctlIOCmd = 0xC0484E43

func main() {
	dev := flag.String("dev", "", "namespace block device")
	nsid := flag.Uint("nsid", 1, "namespace id")
	dtype := flag.Uint("dtype", 0, "directive type (CDW12 bits 23:20): 1 streams, 2 data placement")
	dspec := flag.Uint("dspec", 0, "directive specific (CDW13 bits 31:16)")
	n := flag.Int("n", 1, "commands to send")
	slba := flag.Uint64("slba", 0, "first LBA")
	lba := flag.Int("lba-size", 512, "logical block size")
	flag.Parse()
	if *dev == "" || *dtype > 15 || *dspec > 0xffff {
		fmt.Fprintln(os.Stderr, "usage: placewrite -dev /dev/nvme0n1 [-nsid 1] -dtype 2 -dspec 5 [-n 16] [-slba 0]")
		os.Exit(2)
	}
	fd, err := unix.Open(*dev, unix.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "placewrite:", err)
		os.Exit(1)
	}
	defer unix.Close(fd)
	buf := make([]byte, *lba)
	sent, failed := 0, 0
	for i := range *n {
		var cmd [72]byte
		le := binary.LittleEndian
		cmd[0] = 0x01 // Write
		le.PutUint32(cmd[4:], uint32(*nsid))
		le.PutUint64(cmd[24:], uint64(uintptr(unsafe.Pointer(&buf[0]))))
		le.PutUint32(cmd[36:], uint32(len(buf)))
		lba := *slba + uint64(i)
		le.PutUint32(cmd[40:], uint32(lba))        // CDW10: SLBA low
		le.PutUint32(cmd[44:], uint32(lba>>32))    // CDW11: SLBA high
		le.PutUint32(cmd[48:], uint32(*dtype)<<20) // CDW12: NLB 0 (one block), DTYPE
		le.PutUint32(cmd[52:], uint32(*dspec)<<16) // CDW13: DSPEC
		status, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), nvmeIoctlIOCmd, uintptr(unsafe.Pointer(&cmd[0])))
		sent++
		if errno != 0 || status != 0 {
			failed++
		}
	}
	// The controller may refuse a directive it does not support (QEMU 7.2
	// has neither streams nor FDP); the kernel sent the command either way.
	fmt.Printf("sent %d commands, %d refused by the controller or the kernel\n", sent, failed)
}
