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
	"flag"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/nvme/passthru"
)

func main() {
	dev := flag.String("dev", "", "namespace block device")
	nsid := flag.Uint("nsid", 1, "namespace id")
	dtype := flag.Uint("dtype", 0, "directive type (CDW12 bits 23:20): 1 streams, 2 data placement")
	dspec := flag.Uint("dspec", 0, "directive specific (CDW13 bits 31:16)")
	n := flag.Int("n", 1, "commands to send")
	slba := flag.Uint64("slba", 0, "first LBA")
	lba := flag.Int("lba-size", 512, "logical block size")
	strict := flag.Bool("strict", false, "exit 1 when the controller refuses a command")
	flag.Parse()
	if *dev == "" || *dtype > 15 || *dspec > 0xffff {
		fmt.Fprintln(os.Stderr, "usage: placewrite -dev /dev/nvme0n1 [-nsid 1] -dtype 2 -dspec 5 [-n 16] [-slba 0] [-strict]")
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
		lba := *slba + uint64(i)
		_, err := passthru.Send(fd, passthru.IOCmd, passthru.Cmd{Opcode: 0x01, NSID: uint32(*nsid), Data: buf, CDW: [6]uint32{
			uint32(lba), uint32(lba >> 32), // CDW10-11: SLBA
			uint32(*dtype) << 20, // CDW12: NLB 0 (one block), DTYPE
			uint32(*dspec) << 16, // CDW13: DSPEC
		}})
		sent++
		if err != nil {
			failed++
			fmt.Fprintln(os.Stderr, "placewrite:", err)
		}
	}
	// The controller may refuse a directive it does not support (QEMU has
	// no streams); the kernel sent the command either way.
	fmt.Printf("sent %d commands, %d refused by the controller or the kernel\n", sent, failed)
	if *strict && failed > 0 {
		os.Exit(1)
	}
}
