// Package admin is walab's only path to an NVMe controller's admin queue.
//
// Every backend (the Linux ioctl, a replay directory, the simulator) sits
// behind Device, and Device refuses any opcode that could change the drive
// before the backend sees it. Consumers never hold a Backend, only a *Device.
package admin

import "fmt"

// Admin opcodes walab may send. Everything else is refused by the guard.
const (
	OpGetLogPage       uint8 = 0x02
	OpIdentify         uint8 = 0x06
	OpGetFeatures      uint8 = 0x0A
	OpDirectiveReceive uint8 = 0x1A
)

// NSIDAll addresses the controller as a whole (NVME_NSID_ALL).
const NSIDAll uint32 = 0xFFFFFFFF

// Identify CNS values used by walab.
const (
	CNSNamespace  uint8 = 0x00
	CNSController uint8 = 0x01
	CNSUUIDList   uint8 = 0x17 // vendor logs (OCP, Solidigm) are served under a UUID index
)

// IdentifySize is the data length of every Identify command.
const IdentifySize = 4096

// Command is one admin command in the layout of struct nvme_admin_cmd,
// minus the pointers: backends own the data buffer.
type Command struct {
	Opcode  uint8
	NSID    uint32
	CDW10   uint32
	CDW11   uint32
	CDW12   uint32
	CDW13   uint32
	CDW14   uint32
	CDW15   uint32
	DataLen uint32 // bytes to transfer from the device
}

// Result is what a completed command returns.
type Result struct {
	Data []byte // DataLen bytes (may be shorter only if the backend says so)
	DW0  uint32 // completion queue entry dword 0
}

// LogPage describes one Get Log Page read.
type LogPage struct {
	LID    uint8
	LSP    uint8  // log specific field, 7 bits
	LSI    uint16 // log specific identifier (endurance group for 0x09, 0x20-0x23)
	NSID   uint32
	Offset uint64 // byte offset, dword aligned (LPOL/LPOU)
	Len    uint32 // bytes, multiple of 4, >= 4
	RAE    bool   // retain asynchronous event: set by pollers so they do not consume AENs
	UUIDX  uint8  // UUID index (CDW14 bits 6:0)
}

// GetLogPage encodes a Get Log Page command (NVMe base spec, CDW10-CDW14).
func GetLogPage(p LogPage) (Command, error) {
	if p.Len < 4 || p.Len%4 != 0 {
		return Command{}, fmt.Errorf("get log page 0x%02x: length %d is not a positive multiple of 4", p.LID, p.Len)
	}
	if p.Offset%4 != 0 {
		return Command{}, fmt.Errorf("get log page 0x%02x: offset %d is not dword aligned", p.LID, p.Offset)
	}
	numd := p.Len/4 - 1
	cdw10 := uint32(p.LID) | uint32(p.LSP&0x7f)<<8 | (numd&0xffff)<<16
	if p.RAE {
		cdw10 |= 1 << 15
	}
	return Command{
		Opcode:  OpGetLogPage,
		NSID:    p.NSID,
		CDW10:   cdw10,
		CDW11:   numd>>16 | uint32(p.LSI)<<16,
		CDW12:   uint32(p.Offset),
		CDW13:   uint32(p.Offset >> 32),
		CDW14:   uint32(p.UUIDX & 0x7f),
		DataLen: p.Len,
	}, nil
}

// Identify encodes an Identify command; the data is always 4096 bytes.
func Identify(cns uint8, nsid uint32) Command {
	return Command{Opcode: OpIdentify, NSID: nsid, CDW10: uint32(cns), DataLen: IdentifySize}
}

// GetFeatures encodes Get Features for the current value (SEL=0).
// dataLen is 0 for features that return only dword 0.
func GetFeatures(fid uint8, nsid, cdw11, dataLen uint32) Command {
	return Command{Opcode: OpGetFeatures, NSID: nsid, CDW10: uint32(fid), CDW11: cdw11, DataLen: dataLen}
}

// DirectiveReceive encodes Directive Receive. nsid must be a real namespace:
// controllers reject NSIDAll here.
func DirectiveReceive(nsid uint32, dtype, doper uint8, dspec uint16, dataLen uint32) (Command, error) {
	if dataLen < 4 || dataLen%4 != 0 {
		return Command{}, fmt.Errorf("directive receive %d/%d: length %d is not a positive multiple of 4", dtype, doper, dataLen)
	}
	return Command{
		Opcode:  OpDirectiveReceive,
		NSID:    nsid,
		CDW10:   dataLen/4 - 1,
		CDW11:   uint32(doper) | uint32(dtype)<<8 | uint32(dspec)<<16,
		DataLen: dataLen,
	}, nil
}

// LogID returns the log identifier of a Get Log Page command, and false for other opcodes.
func (c Command) LogID() (uint8, bool) {
	if c.Opcode != OpGetLogPage {
		return 0, false
	}
	return uint8(c.CDW10), true
}

// LogOffset returns the byte offset of a Get Log Page command.
func (c Command) LogOffset() uint64 { return uint64(c.CDW13)<<32 | uint64(c.CDW12) }

// LSI returns the log specific identifier of a Get Log Page command.
func (c Command) LSI() uint16 { return uint16(c.CDW11 >> 16) }

// LSP is a Get Log Page's log specific parameter (CDW10 bits 14:8).
func (c Command) LSP() uint8 { return uint8(c.CDW10>>8) & 0x7f }

// String names the command for errors and logs.
func (c Command) String() string {
	switch c.Opcode {
	case OpGetLogPage:
		return fmt.Sprintf("get-log-page lid=0x%02x lsi=%d nsid=0x%x offset=%d len=%d", uint8(c.CDW10), c.LSI(), c.NSID, c.LogOffset(), c.DataLen)
	case OpIdentify:
		return fmt.Sprintf("identify cns=0x%02x nsid=0x%x", uint8(c.CDW10), c.NSID)
	case OpGetFeatures:
		return fmt.Sprintf("get-features fid=0x%02x nsid=0x%x cdw11=0x%x", uint8(c.CDW10), c.NSID, c.CDW11)
	case OpDirectiveReceive:
		return fmt.Sprintf("directive-receive dtype=%d doper=%d nsid=0x%x len=%d", uint8(c.CDW11>>8), uint8(c.CDW11), c.NSID, c.DataLen)
	}
	return fmt.Sprintf("admin opcode 0x%02x", c.Opcode)
}
