// Command fdpctl runs inside the QEMU test's virtual machine: it is the
// test's second path to an FDP controller, through the kernel's passthrough
// ioctls with its own command layout (internal/nvme/passthru), and the tool that
// does what walab's read-only exporter never does (enable FDP events, end a
// reclaim unit early). Subcommands:
//
//	fdpctl log -dev /dev/nvme0 -lid 0x22 -lsi 1 -len 64 -out log-22.bin
//	fdpctl log -dev /dev/nvme0 -lid 0x20 -lsi 1 -sized 4 -out log-20.bin   (length from the header's 32-bit field at byte 4)
//	fdpctl feature -dev /dev/nvme0 -fid 0x1d -cdw11 1 -out feature-1d.txt
//	fdpctl events -dev /dev/nvme0 -nsid 1 -ph 1 -types 0        (Set Features 0x1E: enable event types on a placement handle)
//	fdpctl ruh-update -dev /dev/nvme0n1 -nsid 1 -pids 1          (I/O Management Send: a new reclaim unit for each placement id)
//	fdpctl ruh-status -dev /dev/nvme0n1 -nsid 1 -len 4096 -out ruh-status.bin
//
// It is a test tool: walab's exporter never sends Set Features or I/O
// commands.
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/nvme/passthru"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dev := fs.String("dev", "", "controller (/dev/nvmeX) or namespace (/dev/nvmeXnY) node")
	nsid := fs.Uint("nsid", 0, "namespace id")
	out := fs.String("out", "", "file for the data read")
	lid := fs.Uint("lid", 0, "log page id")
	lsp := fs.Uint("lsp", 0, "log specific parameter")
	lsi := fs.Uint("lsi", 0, "log specific identifier (endurance group for 0x09, 0x20-0x23)")
	length := fs.Uint("len", 0, "bytes to read")
	sized := fs.Int("sized", -1, "log: read its header first; the length is the 32-bit field at this byte offset (0x20) ...")
	count := fs.Int("count", -1, "log: ... or the entry count (32 bits) at this byte offset, times -each, plus -len (0x21, 0x23)")
	each := fs.Uint("each", 0, "log: bytes per counted entry")
	fid := fs.Uint("fid", 0, "feature id")
	cdw11 := fs.Uint("cdw11", 0, "feature: CDW11")
	ph := fs.Uint("ph", 0, "events: placement handle")
	types := fs.String("types", "0", "events: comma-separated event types to enable")
	pids := fs.String("pids", "", "ruh-update: comma-separated placement identifiers")
	_ = fs.Parse(os.Args[2:])
	if *dev == "" {
		usage()
	}
	fd, err := unix.Open(*dev, unix.O_RDWR, 0)
	if err != nil {
		fail(err)
	}
	defer unix.Close(fd)
	var data []byte
	switch os.Args[1] {
	case "log":
		data, err = readLog(fd, uint32(*nsid), uint8(*lid), uint8(*lsp), uint16(*lsi), uint32(*length), *sized, *count, uint32(*each))
	case "feature":
		var dw0 uint32
		dw0, err = passthru.Send(fd, passthru.AdminCmd, passthru.Cmd{Opcode: 0x0A, NSID: uint32(*nsid), CDW: [6]uint32{uint32(*fid), uint32(*cdw11)}})
		data = []byte(fmt.Sprintf("0x%08x\n", dw0))
	case "events":
		err = enableEvents(fd, uint32(*nsid), uint16(*ph), *types)
	case "ruh-update":
		err = ruhUpdate(fd, uint32(*nsid), *pids)
	case "ruh-status":
		data = make([]byte, *length)
		_, err = passthru.Send(fd, passthru.IOCmd, passthru.Cmd{Opcode: 0x12, NSID: uint32(*nsid), Data: data,
			CDW: [6]uint32{1, uint32(*length)/4 - 1}}) // MO 1: reclaim unit handle status; NUMD
	default:
		usage()
	}
	if err == nil && *out != "" {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fail(err)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: fdpctl log|feature|events|ruh-update|ruh-status -dev DEV [flags] (see the package comment)")
	os.Exit(2)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fdpctl:", err)
	os.Exit(1)
}

// getLog reads n bytes of a log page from offset 0.
func getLog(fd int, nsid uint32, lid, lsp uint8, lsi uint16, n uint32) ([]byte, error) {
	if n == 0 || n%4 != 0 {
		return nil, fmt.Errorf("log 0x%02x: length %d: want a positive multiple of 4", lid, n)
	}
	b := make([]byte, n)
	numd := n/4 - 1
	_, err := passthru.Send(fd, passthru.AdminCmd, passthru.Cmd{Opcode: 0x02, NSID: nsid, Data: b, CDW: [6]uint32{
		uint32(lid) | uint32(lsp)<<8 | (numd&0xffff)<<16, // CDW10: LID, LSP, NUMDL
		numd>>16 | uint32(lsi)<<16,                       // CDW11: NUMDU, LSI
	}})
	return b, err
}

// readLog reads a log page whose length is fixed (-len), given by a size
// field in its header (-sized), or by an entry count in its header
// (-count, -each, plus -len for the header).
func readLog(fd int, nsid uint32, lid, lsp uint8, lsi uint16, n uint32, sized, count int, each uint32) ([]byte, error) {
	if sized < 0 && count < 0 {
		return getLog(fd, nsid, lid, lsp, lsi, n)
	}
	hdr, err := getLog(fd, nsid, lid, lsp, lsi, 16)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	if sized >= 0 {
		if sized+4 > len(hdr) {
			return nil, errors.New("-sized past the 16-byte header")
		}
		n = le.Uint32(hdr[sized:])
	} else {
		if count+4 > len(hdr) {
			return nil, errors.New("-count past the 16-byte header")
		}
		n += le.Uint32(hdr[count:]) * each
	}
	if n > 1<<20 {
		return nil, fmt.Errorf("log 0x%02x: header asks for %d bytes", lid, n)
	}
	return getLog(fd, nsid, lid, lsp, lsi, (n+3)&^3)
}

// enableEvents sends Set Features FDP Events (0x1E) for one placement
// handle: CDW11 = handle | number of event types << 16, CDW12 bit 0 =
// enable, the data is one byte per event type.
func enableEvents(fd int, nsid uint32, ph uint16, list string) error {
	types, err := parseList("-types", list, 8)
	if err != nil {
		return err
	}
	data := make([]byte, 4*((len(types)+3)/4)) // a whole number of dwords
	for i, v := range types {
		data[i] = byte(v)
	}
	_, err = passthru.Send(fd, passthru.AdminCmd, passthru.Cmd{Opcode: 0x09, NSID: nsid, Data: data,
		CDW: [6]uint32{0x1E, uint32(ph) | uint32(len(types))<<16, 1}})
	return err
}

// ruhUpdate sends I/O Management Send, operation 1 (Reclaim Unit Handle
// Update): each listed placement identifier moves to a new reclaim unit.
func ruhUpdate(fd int, nsid uint32, list string) error {
	ids, err := parseList("-pids", list, 16)
	if err != nil {
		return err
	}
	data := make([]byte, 4*((2*len(ids)+3)/4))
	for i, id := range ids {
		binary.LittleEndian.PutUint16(data[2*i:], uint16(id))
	}
	_, err = passthru.Send(fd, passthru.IOCmd, passthru.Cmd{Opcode: 0x1D, NSID: nsid, Data: data,
		CDW: [6]uint32{1 | uint32(len(ids)-1)<<16}}) // MO 1, NPID 0-based
	return err
}

// parseList reads a comma-separated list of numbers of at most bits bits.
func parseList(flagName, list string, bits int) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 0, bits)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", flagName, list, err)
		}
		out = append(out, v)
	}
	return out, nil
}
