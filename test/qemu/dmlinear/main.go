// Command dmlinear runs inside the QEMU test's virtual machine and creates
// a device-mapper linear device over a block device through the kernel's
// DM ioctls on /dev/mapper/control (what dmsetup does, without its shared
// libraries): DM_DEV_CREATE, DM_TABLE_LOAD with one "linear" target,
// DM_DEV_SUSPEND to resume. It is a test tool.
//
//	dmlinear -name walab-linear -dev 9:0 -sectors 262144
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	dmIoctlSize = 312 // struct dm_ioctl
	specSize    = 40  // struct dm_target_spec
	dmDevCreate = 3
	dmDevSusp   = 6
	dmTableLoad = 9
)

func ioc(nr uintptr) uintptr { return 3<<30 | dmIoctlSize<<16 | 0xfd<<8 | nr }

// header fills struct dm_ioctl: version 4.0.0, sizes, the device name.
func header(buf []byte, name string, targets uint32) {
	le := binary.LittleEndian
	le.PutUint32(buf[0:], 4) // version major; minor and patch 0: any 4.x kernel accepts
	le.PutUint32(buf[12:], uint32(len(buf)))
	le.PutUint32(buf[16:], dmIoctlSize)
	le.PutUint32(buf[20:], targets)
	copy(buf[48:48+127], name)
}

func call(fd int, nr uintptr, buf []byte) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), ioc(nr), uintptr(unsafe.Pointer(&buf[0]))); e != 0 {
		return e
	}
	return nil
}

func main() {
	name := flag.String("name", "", "dm device name")
	dev := flag.String("dev", "", "underlying device as major:minor")
	sectors := flag.Uint64("sectors", 0, "length in 512-byte sectors")
	flag.Parse()
	if *name == "" || *dev == "" || *sectors == 0 {
		fmt.Fprintln(os.Stderr, "usage: dmlinear -name NAME -dev MAJ:MIN -sectors N")
		os.Exit(2)
	}
	fd, err := unix.Open("/dev/mapper/control", unix.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dmlinear:", err)
		os.Exit(1)
	}
	defer unix.Close(fd)
	fail := func(step string, err error) {
		fmt.Fprintf(os.Stderr, "dmlinear: %s: %v\n", step, err)
		os.Exit(1)
	}
	buf := make([]byte, 16384)
	header(buf, *name, 0)
	if err := call(fd, dmDevCreate, buf); err != nil {
		fail("DM_DEV_CREATE", err)
	}
	params := fmt.Sprintf("%s 0", *dev)
	next := (specSize + len(params) + 1 + 7) &^ 7
	buf = make([]byte, dmIoctlSize+next)
	header(buf, *name, 1)
	spec := buf[dmIoctlSize:]
	binary.LittleEndian.PutUint64(spec[0:], 0)
	binary.LittleEndian.PutUint64(spec[8:], *sectors)
	copy(spec[24:40], "linear")
	copy(spec[specSize:], params)
	if err := call(fd, dmTableLoad, buf); err != nil {
		fail("DM_TABLE_LOAD", err)
	}
	buf = make([]byte, 16384)
	header(buf, *name, 0)
	if err := call(fd, dmDevSusp, buf); err != nil { // no DM_SUSPEND_FLAG: resume
		fail("DM_DEV_SUSPEND (resume)", err)
	}
	fmt.Printf("created %s over %s, %d sectors\n", *name, *dev, *sectors)
}
