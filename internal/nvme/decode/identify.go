package decode

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
)

// IdentifySize is the data length of every Identify command.
const IdentifySize = 4096

// IDController is the part of Identify Controller (CNS 0x01) walab uses to
// name a drive and to decide which logs are worth asking for.
type IDController struct {
	VID, SSVID uint16
	Serial     string // trimmed of padding spaces and NULs
	Model      string
	Firmware   string
	CNTLID     uint16
	OACS       uint16
	LPA        uint8
	CTRATT     uint32
	TNVMCAP    U128 // bytes
	UNVMCAP    U128 // bytes
	NN         uint32
	ENDGIDMAX  uint16
	MDTS       uint8
	VER        uint32 // NVMe version (0x00020000: 2.0)
	CNTRLTYPE  uint8  // 1: I/O controller
	WCTEMP     uint16 // warning composite temperature threshold, Kelvin
	CCTEMP     uint16 // critical composite temperature threshold, Kelvin
	SUBNQN     string // NVM subsystem NQN, trimmed of NULs
	MEGCAP     U128   // maximum endurance group capacity, bytes
}

// DirectivesSupported: OACS bit 5, Directive Send/Receive exist.
func (c IDController) DirectivesSupported() bool { return c.OACS&(1<<5) != 0 }

// ExtendedLogData: LPA bit 2, Get Log Page takes NUMDU and offsets, so a log
// over 4 KiB can be read in pieces.
func (c IDController) ExtendedLogData() bool { return c.LPA&(1<<2) != 0 }

// SMARTPerNamespace: LPA bit 0, the SMART log accepts a namespace NSID.
func (c IDController) SMARTPerNamespace() bool { return c.LPA&1 != 0 }

// EnduranceGroups: CTRATT bit 4, the Endurance Group log (0x09) exists.
func (c IDController) EnduranceGroups() bool { return c.CTRATT&(1<<4) != 0 }

// UUIDListSupported: CTRATT bit 9, the Identify UUID List (CNS 0x17) exists.
func (c IDController) UUIDListSupported() bool { return c.CTRATT&(1<<9) != 0 }

// FDPSupported: CTRATT bit 19, Flexible Data Placement logs 0x20-0x23 exist.
func (c IDController) FDPSupported() bool { return c.CTRATT&(1<<19) != 0 }

// ParseIDController decodes an Identify Controller page (4096 bytes).
func ParseIDController(b []byte) (IDController, error) {
	if err := need("Identify Controller (CNS 0x01)", b, IdentifySize); err != nil {
		return IDController{}, err
	}
	le := binary.LittleEndian
	return IDController{
		VID:       le.Uint16(b[0:]),
		SSVID:     le.Uint16(b[2:]),
		Serial:    ascii(b[4:24]),
		Model:     ascii(b[24:64]),
		Firmware:  ascii(b[64:72]),
		MDTS:      b[77],
		CNTLID:    le.Uint16(b[78:]),
		CTRATT:    le.Uint32(b[96:]),
		OACS:      le.Uint16(b[256:]),
		LPA:       b[261],
		TNVMCAP:   LE128(b[280:296]),
		UNVMCAP:   LE128(b[296:312]),
		ENDGIDMAX: le.Uint16(b[340:]),
		NN:        le.Uint32(b[516:]),
		VER:       le.Uint32(b[80:]),
		CNTRLTYPE: b[111],
		WCTEMP:    le.Uint16(b[266:]),
		CCTEMP:    le.Uint16(b[268:]),
		SUBNQN:    ascii(b[768:1024]),
		MEGCAP:    LE128(b[368:384]),
	}, nil
}

// AppendIDController appends c as a 4096-byte Identify Controller page,
// the layout ParseIDController reads (strings space-padded as the
// specification has them, the NQN NUL-padded, other bytes zero): for a page
// that parses, ParseIDController(AppendIDController(nil, c)) == c.
func AppendIDController(b []byte, c IDController) []byte {
	p := make([]byte, IdentifySize)
	le := binary.LittleEndian
	le.PutUint16(p[0:], c.VID)
	le.PutUint16(p[2:], c.SSVID)
	padASCII(p[4:24], c.Serial)
	padASCII(p[24:64], c.Model)
	padASCII(p[64:72], c.Firmware)
	p[77] = c.MDTS
	le.PutUint16(p[78:], c.CNTLID)
	le.PutUint32(p[80:], c.VER)
	le.PutUint32(p[96:], c.CTRATT)
	p[111] = c.CNTRLTYPE
	le.PutUint16(p[256:], c.OACS)
	p[261] = c.LPA
	le.PutUint16(p[266:], c.WCTEMP)
	le.PutUint16(p[268:], c.CCTEMP)
	PutLE128(p[280:], c.TNVMCAP)
	PutLE128(p[296:], c.UNVMCAP)
	le.PutUint16(p[340:], c.ENDGIDMAX)
	PutLE128(p[368:], c.MEGCAP)
	le.PutUint32(p[516:], c.NN)
	copy(p[768:1024], c.SUBNQN)
	return append(b, p...)
}

// padASCII fills dst with s and pads it with spaces (an Identify string).
func padASCII(dst []byte, s string) {
	n := copy(dst, s)
	for i := n; i < len(dst); i++ {
		dst[i] = ' '
	}
}

// ascii turns a space-padded identify string into a label-safe one: padding
// spaces and NULs go, and any byte outside printable ASCII becomes '?', so a
// firmware with garbage in its serial cannot produce invalid UTF-8 labels.
func ascii(b []byte) string {
	s := strings.Trim(string(b), " \x00")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

// IDNamespace is the part of Identify Namespace (CNS 0x00) walab uses.
type IDNamespace struct {
	NSZE, NCAP, NUSE uint64 // logical blocks
	NVMCAP           U128   // bytes
	LBADataSize      uint32 // bytes per logical block, from FLBAS/LBAF; 0 for an inactive namespace
	ENDGID           uint16
	LBAFormat        uint8 // index of the LBA format in use
}

// ParseIDNamespace decodes an Identify Namespace page (4096 bytes).
func ParseIDNamespace(b []byte) (IDNamespace, error) {
	const what = "Identify Namespace (CNS 0x00)"
	if err := need(what, b, IdentifySize); err != nil {
		return IDNamespace{}, err
	}
	le := binary.LittleEndian
	ns := IDNamespace{
		NSZE:   le.Uint64(b[0:]),
		NCAP:   le.Uint64(b[8:]),
		NUSE:   le.Uint64(b[16:]),
		NVMCAP: LE128(b[48:64]),
		ENDGID: le.Uint16(b[102:]),
	}
	nlbaf, flbas := b[25], b[26]
	idx := flbas & 0x0f
	if nlbaf >= 16 { // bits 6:5 extend the index only when there are more than 16 formats
		idx |= (flbas >> 5 & 0x3) << 4
	}
	if idx > nlbaf {
		return IDNamespace{}, fmt.Errorf("decode %s: FLBAS selects LBA format %d but NLBAF says only %d exist", what, idx, int(nlbaf)+1)
	}
	ns.LBAFormat = idx
	lbads := b[128+4*int(idx)+2]
	switch {
	case lbads == 0: // inactive or unformatted namespace: no size, not an error
	case lbads < 9 || lbads > 31:
		return IDNamespace{}, fmt.Errorf("decode %s: LBA format %d has LBADS %d (2^%d-byte blocks), outside 512 B..2 GiB", what, idx, lbads, lbads)
	default:
		ns.LBADataSize = 1 << lbads
	}
	return ns, nil
}

// AppendIDNamespace appends ns as a 4096-byte Identify Namespace page with
// one LBA format (format 0, ns.LBADataSize, which must be a power of two
// or 0 for an inactive namespace), the layout ParseIDNamespace reads; thin
// sets NSFEAT bit 0 (NUSE tracks the mapped blocks). ParseIDNamespace of
// the result gives ns back with LBAFormat 0.
func AppendIDNamespace(b []byte, ns IDNamespace, thin bool) []byte {
	p := make([]byte, IdentifySize)
	le := binary.LittleEndian
	le.PutUint64(p[0:], ns.NSZE)
	le.PutUint64(p[8:], ns.NCAP)
	le.PutUint64(p[16:], ns.NUSE)
	if thin {
		p[24] = 1
	}
	PutLE128(p[48:], ns.NVMCAP)
	le.PutUint16(p[102:], ns.ENDGID)
	if ns.LBADataSize != 0 {
		p[128+2] = uint8(bits.TrailingZeros32(ns.LBADataSize)) // LBAF0 LBADS
	}
	return append(b, p...)
}
