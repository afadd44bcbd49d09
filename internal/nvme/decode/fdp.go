package decode

import (
	"encoding/binary"
	"fmt"
)

// FDPStatsSize is the length of the FDP Statistics log (LID 0x22).
const FDPStatsSize = 64

// FDPStats is the FDP Statistics log of one endurance group: byte-granular,
// so the best standard source for short-window write amplification.
type FDPStats struct {
	HostBytesWithMetadataWritten  U128 // HBMW
	MediaBytesWithMetadataWritten U128 // MBMW
	MediaBytesErased              U128 // MBE
}

// ParseFDPStats decodes the 64-byte FDP Statistics log.
func ParseFDPStats(b []byte) (FDPStats, error) {
	if err := need("FDP statistics log (0x22)", b, FDPStatsSize); err != nil {
		return FDPStats{}, err
	}
	return FDPStats{
		HostBytesWithMetadataWritten:  LE128(b[0:16]),
		MediaBytesWithMetadataWritten: LE128(b[16:32]),
		MediaBytesErased:              LE128(b[32:48]),
	}, nil
}

// FDPConfig is one FDP configuration descriptor.
type FDPConfig struct {
	Valid                  bool   // FDPA bit 7
	RGIF                   uint8  // FDPA bits 3:0, reclaim group identifier format
	VolatileWriteCache     bool   // FDPA bit 4
	NRG                    uint32 // reclaim groups
	NRUH                   uint16 // reclaim unit handles
	MaxPIDs                uint16 // as reported (QEMU reports it 0-based)
	NNSS                   uint32
	ReclaimUnitNominalSize uint64  // bytes
	ERUTL                  uint32  // estimated reclaim unit time limit, seconds
	RUHTypes               []uint8 // per handle: 1 initially isolated, 2 persistently isolated
}

// FDPConfigs is the FDP Configurations log (LID 0x20).
type FDPConfigs struct {
	Version uint8
	Size    uint32 // total log bytes, as the header says
	Configs []FDPConfig
}

const (
	fdpConfigsHeader = 16
	fdpConfigFixed   = 64
	fdpRUHDescriptor = 4
	fdpConfigsWhat   = "FDP configurations log (0x20)"
)

// ParseFDPConfigs decodes the FDP Configurations log: a header, then
// NUMFDPC+1 variable-size descriptors. Every size comes from the device, so
// each is checked against the bytes actually present; a descriptor size of 0
// or one that overruns the log is an error, never a loop or a panic.
func ParseFDPConfigs(b []byte) (FDPConfigs, error) {
	if err := need(fdpConfigsWhat, b, fdpConfigsHeader); err != nil {
		return FDPConfigs{}, err
	}
	le := binary.LittleEndian
	count := int(le.Uint16(b[0:])) + 1 // NUMFDPC is 0-based
	out := FDPConfigs{Version: b[2], Size: le.Uint32(b[4:])}
	if out.Size < fdpConfigsHeader {
		return FDPConfigs{}, fmt.Errorf("decode %s: header size %d is smaller than the %d-byte header", fdpConfigsWhat, out.Size, fdpConfigsHeader)
	}
	if uint64(out.Size) > uint64(len(b)) {
		return FDPConfigs{}, &ShortBufferError{What: fdpConfigsWhat + " (size from its header)", Need: int(out.Size), Got: len(b)}
	}
	page := b[:out.Size]
	off := fdpConfigsHeader
	for i := range count {
		if len(page)-off < 2 {
			return FDPConfigs{}, fmt.Errorf("decode %s: descriptor %d of %d starts at byte %d, past the %d-byte log", fdpConfigsWhat, i, count, off, len(page))
		}
		dsze := int(le.Uint16(page[off:]))
		if dsze < fdpConfigFixed {
			return FDPConfigs{}, fmt.Errorf("decode %s: descriptor %d at byte %d has size %d, below the %d-byte minimum", fdpConfigsWhat, i, off, dsze, fdpConfigFixed)
		}
		if dsze > len(page)-off {
			return FDPConfigs{}, fmt.Errorf("decode %s: descriptor %d at byte %d has size %d, overrunning the %d-byte log", fdpConfigsWhat, i, off, dsze, len(page))
		}
		d := page[off : off+dsze]
		fdpa := d[2]
		c := FDPConfig{
			Valid:                  fdpa&0x80 != 0,
			RGIF:                   fdpa & 0x0f,
			VolatileWriteCache:     fdpa&0x10 != 0,
			NRG:                    le.Uint32(d[4:]),
			NRUH:                   le.Uint16(d[8:]),
			MaxPIDs:                le.Uint16(d[10:]),
			NNSS:                   le.Uint32(d[12:]),
			ReclaimUnitNominalSize: le.Uint64(d[16:]),
			ERUTL:                  le.Uint32(d[24:]),
		}
		if need := fdpConfigFixed + fdpRUHDescriptor*int(c.NRUH); need > dsze {
			return FDPConfigs{}, fmt.Errorf("decode %s: descriptor %d declares %d reclaim unit handles (%d bytes) but is only %d bytes", fdpConfigsWhat, i, c.NRUH, need, dsze)
		}
		c.RUHTypes = make([]uint8, c.NRUH)
		for h := range c.RUHTypes {
			c.RUHTypes[h] = d[fdpConfigFixed+fdpRUHDescriptor*h]
		}
		out.Configs = append(out.Configs, c)
		off += dsze
	}
	return out, nil
}

// RUHUsage is the Reclaim Unit Handle Usage log (LID 0x21).
type RUHUsage struct {
	Attributes []uint8 // per handle: 0 unused, bit0 host specified, bit1 controller specified
}

const (
	ruhUsageHeader     = 8
	ruhUsageDescriptor = 8
)

// ParseRUHUsage decodes the RUH Usage log; the handle count must fit the buffer.
func ParseRUHUsage(b []byte) (RUHUsage, error) {
	n, err := counted("FDP reclaim unit handle usage log (0x21)", "handles", b, ruhUsageHeader, 0, ruhUsageDescriptor)
	if err != nil {
		return RUHUsage{}, err
	}
	u := RUHUsage{Attributes: make([]uint8, n)}
	for i := range u.Attributes {
		u.Attributes[i] = b[ruhUsageHeader+ruhUsageDescriptor*i]
	}
	return u, nil
}

// Identifiers of the FDP feature and logs (NVMe base spec 2.1, TP4146).
const (
	FeatureFDP        = 0x1D // Get Features: FDP; CDW11 = endurance group, DW0 bit 0 enabled, bits 15:8 config index
	LogFDPConfigs     = 0x20 // FDP Configurations, LSI = endurance group
	LogRUHUsage       = 0x21 // Reclaim Unit Handle Usage, LSI = endurance group
	LogFDPStatistics  = 0x22 // FDP Statistics, LSI = endurance group
	FDPConfigsHdrSize = 16   // header of log 0x20: its total size is at bytes 4..7
	RUHUsageHdrSize   = 8    // header of log 0x21: its handle count is at bytes 0..1
)

// AppendFDPStats appends s as the 64-byte FDP Statistics log:
// ParseFDPStats(AppendFDPStats(nil, s)) == s.
func AppendFDPStats(b []byte, s FDPStats) []byte {
	p := make([]byte, FDPStatsSize)
	PutLE128(p[0:], s.HostBytesWithMetadataWritten)
	PutLE128(p[16:], s.MediaBytesWithMetadataWritten)
	PutLE128(p[32:], s.MediaBytesErased)
	return append(b, p...)
}

// AppendFDPConfigs appends c as the FDP Configurations log: the header
// (NUMFDPC from len(c.Configs), c.Version, the total size computed here),
// then one descriptor per configuration sized for its RUHTypes (whose count
// is NRUH). ParseFDPConfigs of the result gives c back with Size set.
func AppendFDPConfigs(b []byte, c FDPConfigs) []byte {
	le := binary.LittleEndian
	size := fdpConfigsHeader
	for _, d := range c.Configs {
		size += fdpConfigFixed + fdpRUHDescriptor*len(d.RUHTypes)
	}
	p := make([]byte, size)
	le.PutUint16(p[0:], uint16(max(len(c.Configs)-1, 0))) // NUMFDPC is 0-based
	p[2] = c.Version
	le.PutUint32(p[4:], uint32(size))
	off := fdpConfigsHeader
	for _, d := range c.Configs {
		dsze := fdpConfigFixed + fdpRUHDescriptor*len(d.RUHTypes)
		q := p[off : off+dsze]
		le.PutUint16(q[0:], uint16(dsze))
		fdpa := d.RGIF & 0x0f
		if d.VolatileWriteCache {
			fdpa |= 0x10
		}
		if d.Valid {
			fdpa |= 0x80
		}
		q[2] = fdpa
		le.PutUint32(q[4:], d.NRG)
		le.PutUint16(q[8:], uint16(len(d.RUHTypes)))
		le.PutUint16(q[10:], d.MaxPIDs)
		le.PutUint32(q[12:], d.NNSS)
		le.PutUint64(q[16:], d.ReclaimUnitNominalSize)
		le.PutUint32(q[24:], d.ERUTL)
		for h, t := range d.RUHTypes {
			q[fdpConfigFixed+fdpRUHDescriptor*h] = t
		}
		off += dsze
	}
	return append(b, p...)
}

// AppendRUHUsage appends u as the Reclaim Unit Handle Usage log:
// ParseRUHUsage(AppendRUHUsage(nil, u)) == u.
func AppendRUHUsage(b []byte, u RUHUsage) []byte {
	p := make([]byte, ruhUsageHeader+ruhUsageDescriptor*len(u.Attributes))
	binary.LittleEndian.PutUint16(p[0:], uint16(len(u.Attributes)))
	for i, a := range u.Attributes {
		p[ruhUsageHeader+ruhUsageDescriptor*i] = a
	}
	return append(b, p...)
}

// RUHStatus is the Reclaim Unit Handle Status an I/O Management Receive
// (opcode 0x12, management operation 1) returns for a namespace: one
// descriptor per placement handle it may use.
type RUHStatus struct {
	Handles []RUHStatusDescriptor
}

// RUHStatusDescriptor is one placement identifier's reclaim unit handle
// and what its current reclaim unit can still take.
type RUHStatusDescriptor struct {
	PID    uint16 // placement identifier: reclaim group and placement handle
	RUHID  uint16 // the reclaim unit handle it names
	EARUTR uint32 // estimated active reclaim unit time remaining, seconds
	RUAMW  uint64 // reclaim unit available media writes, logical blocks
}

// ParseRUHStatus decodes the RUH Status data (a 16-byte header with the
// descriptor count at bytes 14-15, then 32-byte descriptors); the count
// must fit the buffer.
func ParseRUHStatus(b []byte) (RUHStatus, error) {
	n, err := counted("reclaim unit handle status (I/O Management Receive)", "descriptors", b, 16, 14, 32)
	if err != nil {
		return RUHStatus{}, err
	}
	le := binary.LittleEndian
	var s RUHStatus
	for d := b[16:]; len(s.Handles) < n; d = d[32:] {
		s.Handles = append(s.Handles, RUHStatusDescriptor{PID: le.Uint16(d[0:]), RUHID: le.Uint16(d[2:]), EARUTR: le.Uint32(d[4:]), RUAMW: le.Uint64(d[8:])})
	}
	return s, nil
}

// counted checks a page of a header of hdr bytes whose 16-bit count of
// entries of each bytes is at countOff, and returns the count.
func counted(what, entries string, b []byte, hdr, countOff, each int) (int, error) {
	if err := need(what, b, hdr); err != nil {
		return 0, err
	}
	n := int(binary.LittleEndian.Uint16(b[countOff:]))
	return n, need(fmt.Sprintf("%s with %d %s", what, n, entries), b, hdr+each*n)
}
