// Package device is the filesystem's device backend (internal/simfs): each
// write MariaDB makes through the mount also goes to an NVMe namespace, at
// the LBAs walab's allocator gave the file's pages, as a Write command with
// the data placement directive (DTYPE 2, DSPEC = the placement handle the
// policy gives the file); each extent a file frees becomes a Dataset
// Management deallocate. The commands go through the kernel's NVMe I/O
// passthrough ioctl (internal/nvme/passthru), which every kernel with the
// nvme driver has (a file's writes through a filesystem carry no placement
// on any kernel; write_stream is for raw block devices from 6.16 only).
// The data the database reads stays in the backing directory: the device
// receives the database's write stream, at its sizes, places and order, so
// the drive's own counters give the real write amplification of MySQL's
// files under a placement policy.
//
// The backend is the user's explicit configuration (sim.fs.device), not a
// collector: the exporter's collectors stay read-only toward devices.
package device

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/nvme/passthru"
	"github.com/walab/walab/internal/rawdev"
	"github.com/walab/walab/internal/simfs/fileclass"
)

// Config is the sim.fs.device section: the namespace and the policy.
type Config struct {
	// Path is the namespace's block device (/dev/nvme0n1); the backend
	// writes it, so it must hold nothing but what the backend wrote (Check).
	Path      string    `yaml:"path"`
	Placement Placement `yaml:"placement"`
}

// NVMe opcodes and the data placement directive type.
const (
	opWrite        = 0x01
	opDSM          = 0x09
	dtypePlacement = 2
	dsmDeallocate  = 1 << 2 // CDW11 AD
	maxCmdBytes    = 256 << 10
)

// Device is an open namespace the backend writes.
type Device struct {
	path     string
	fd       int
	nsid     uint32
	lbaSize  uint32
	perPage  uint64 // LBAs per allocator page
	maxLBAs  uint64 // LBAs per Write command
	pol      *Policy
	buf      []byte // what each write carries: incompressible, the same every run
	mu       sync.Mutex
	st       Stats
	firstErr error
}

// Stats counts what the backend sent the namespace.
type Stats struct {
	Written     map[Key]uint64 // bytes written, by file class and placement handle
	LabelBytes  uint64         // the label's page, written once to a new namespace
	Deallocated uint64         // bytes deallocated
	Commands    uint64
	Errors      uint64
	FirstErr    string
}

// Key is a file class and the placement handle its writes carried.
type Key struct {
	Class  fileclass.Class
	Handle uint16
}

// Open guards and opens the namespace at path for a filesystem of pages
// allocator pages of pageSize bytes: rawdev's guard (not mounted, swap,
// held or open elsewhere; opened O_EXCL), then Check on its contents, then
// the NVMe namespace id and block size. The namespace's first page holds
// the Label; allocator page n is at byte (n+1)*pageSize.
func Open(c Config, pageSize, pages uint32) (*Device, error) {
	pol, err := c.Placement.Compile()
	if err != nil {
		return nil, err
	}
	size, err := rawdev.Default.CheckDevice(c.Path)
	if err != nil {
		return nil, fmt.Errorf("device: %w", err)
	}
	fd, err := unix.Open(c.Path, unix.O_RDWR|unix.O_EXCL|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("device: %s: %w", c.Path, err)
	}
	d := &Device{path: c.Path, fd: fd, pol: pol}
	if err := d.setUp(size, pageSize, pages); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return d, nil
}

func (d *Device) setUp(size int64, pageSize, pages uint32) error {
	labelled, err := checkDirect(d.path, size)
	if err != nil {
		return fmt.Errorf("device %s: %w", d.path, err)
	}
	nsid, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(d.fd), passthru.NSID, 0)
	if errno != 0 {
		return fmt.Errorf("device %s is not an NVMe namespace (NVME_IOCTL_ID: %w)", d.path, errno)
	}
	lba, err := unix.IoctlGetInt(d.fd, unix.BLKSSZGET)
	if err != nil || lba <= 0 || pageSize%uint32(lba) != 0 {
		return fmt.Errorf("device %s: logical block size %d (%v) does not divide the filesystem's page of %d bytes", d.path, lba, err, pageSize)
	}
	if need := (int64(pages) + 1) * int64(pageSize); need > size {
		return fmt.Errorf("device %s: %d bytes, the filesystem needs %d (sim.capacity and one page for walab's label): lower sim.capacity", d.path, size, need)
	}
	d.nsid, d.lbaSize, d.perPage = uint32(nsid), uint32(lba), uint64(pageSize)/uint64(lba)
	d.maxLBAs = uint64(maxTransfer(d.path, pageSize)) / uint64(lba)
	d.buf = make([]byte, d.maxLBAs*uint64(lba))
	fillBuf(d.buf)
	d.st = Stats{Written: map[Key]uint64{}}
	if labelled {
		// A namespace the backend wrote before (a restarted or killed
		// exporter): its files are laid out anew at the mount and written
		// again, so what the old layout left is deallocated first.
		return d.deallocate(d.perPage, uint64(pages)*d.perPage)
	}
	label := make([]byte, pageSize)
	copy(label, Label)
	if err := d.write(0, uint64(pageSize)/uint64(lba), label, d.pol.def); err != nil {
		return err
	}
	d.st.LabelBytes = uint64(pageSize)
	return nil
}

// fillBuf fills b with the bytes every write carries: incompressible (a
// drive that compresses or deduplicates sees real-looking data), the same
// every run.
func fillBuf(b []byte) {
	r := rand.NewChaCha8([32]byte{'w', 'a', 'l', 'a', 'b'})
	_, _ = r.Read(b)
}

// maxTransfer is the largest Write the kernel passes for the device
// (queue/max_hw_sectors_kb), at most maxCmdBytes, at least one page.
func maxTransfer(path string, pageSize uint32) int {
	var st unix.Stat_t
	n := maxCmdBytes
	if unix.Stat(path, &st) == nil {
		f := filepath.Join("/sys/dev/block", fmt.Sprintf("%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev)), "queue", "max_hw_sectors_kb")
		if b, err := os.ReadFile(f); err == nil {
			if kb, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && kb > 0 {
				n = min(n, kb<<10)
			}
		}
	}
	return max(int(pageSize), n/int(pageSize)*int(pageSize))
}

// Write sends the pages of a write to the file name (class c) at
// allocator page lpn, with the policy's placement handle.
func (d *Device) Write(name string, c fileclass.Class, lpn, pages uint32) error {
	h := d.pol.Handle(name, c)
	slba, n := (uint64(lpn)+1)*d.perPage, uint64(pages)*d.perPage
	d.mu.Lock()
	defer d.mu.Unlock()
	for n > 0 {
		k := min(n, d.maxLBAs)
		if err := d.write(slba, k, d.buf[:k*uint64(d.lbaSize)], h); err != nil {
			return err
		}
		d.st.Written[Key{c, h}] += k * uint64(d.lbaSize)
		slba, n = slba+k, n-k
	}
	return nil
}

// write sends one Write command of n LBAs at slba carrying handle h.
func (d *Device) write(slba, n uint64, data []byte, h uint16) error {
	_, err := passthru.Send(d.fd, passthru.IOCmd, passthru.Cmd{Opcode: opWrite, NSID: d.nsid, Data: data, CDW: [6]uint32{
		uint32(slba), uint32(slba >> 32), // CDW10-11: SLBA
		uint32(n-1) | dtypePlacement<<20, // CDW12: NLB (0's based), DTYPE
		uint32(h) << 16,                  // CDW13: DSPEC, the placement identifier (reclaim group 0)
	}})
	d.st.Commands++
	if err != nil {
		return d.fail(fmt.Errorf("device %s: write of %d LBAs at %d (handle %d): %w", d.path, n, slba, h, err))
	}
	return nil
}

// Deallocate sends a Dataset Management deallocate for pages allocator
// pages from lpn, the pages a file freed.
func (d *Device) Deallocate(lpn, pages uint32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.deallocate((uint64(lpn)+1)*d.perPage, uint64(pages)*d.perPage)
}

// deallocate frees n LBAs from slba, one range a command (a range holds
// at most 2^32-1 LBAs).
func (d *Device) deallocate(slba, n uint64) error {
	rng := make([]byte, 16) // one range: context attributes, length in LBAs, starting LBA
	for n > 0 {
		k := min(n, 1<<31)
		binary.LittleEndian.PutUint32(rng[4:], uint32(k))
		binary.LittleEndian.PutUint64(rng[8:], slba)
		_, err := passthru.Send(d.fd, passthru.IOCmd, passthru.Cmd{Opcode: opDSM, NSID: d.nsid, Data: rng, CDW: [6]uint32{0, dsmDeallocate}})
		d.st.Commands++
		if err != nil {
			return d.fail(fmt.Errorf("device %s: deallocate of %d LBAs at %d: %w", d.path, k, slba, err))
		}
		d.st.Deallocated += k * uint64(d.lbaSize)
		slba, n = slba+k, n-k
	}
	return nil
}

func (d *Device) fail(err error) error {
	d.st.Errors++
	if d.firstErr == nil {
		d.firstErr = err
	}
	return err
}

// Stats returns a copy of the counters.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.st
	s.Written = maps.Clone(d.st.Written)
	if d.firstErr != nil {
		s.FirstErr = d.firstErr.Error()
	}
	return s
}

// Policy is the compiled placement policy.
func (d *Device) Policy() *Policy { return d.pol }

// Path is the namespace's block device.
func (d *Device) Path() string { return d.path }

// Close closes the namespace.
func (d *Device) Close() error { return unix.Close(d.fd) }
