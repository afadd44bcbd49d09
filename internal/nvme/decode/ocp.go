package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// OCPSmartExtendedSize is the length of the OCP SMART / Health Information
// Extended log (LID 0xC0).
const OCPSmartExtendedSize = 512

// ocpGUIDOffset is where the OCP log carries its GUID.
const ocpGUIDOffset = 496

// OCPSmartExtendedGUID is the Log Page GUID of the OCP extended SMART log,
// in page byte order.
var OCPSmartExtendedGUID = [16]byte{0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF}

// ErrGUIDMismatch is wrapped when a page does not carry the GUID its layout
// requires. Several vendors use LID 0xC0 for unrelated layouts (WDC, Micron,
// Huawei), so the log ID alone never identifies the OCP page.
var ErrGUIDMismatch = errors.New("log page GUID does not match")

// ErrRefusedGUID is wrapped when a page carries a GUID its layout refuses,
// e.g. a vendor 0xC0 layout handed an OCP page.
var ErrRefusedGUID = errors.New("log page carries a refused GUID")

// OCPSmartExtended is the OCP Datacenter NVMe SSD "SMART / Health Information
// Extended" log. Fields introduced by later log page versions read as zero on
// drives reporting an older LogPageVersion (those bytes are reserved there).
type OCPSmartExtended struct {
	PhysicalMediaUnitsWritten U128 // bytes written to NAND (host + controller)
	PhysicalMediaUnitsRead    U128 // bytes read from NAND

	BadUserNANDBlocksRaw          uint64 // 48-bit
	BadUserNANDBlocksNormalized   uint16
	BadSystemNANDBlocksRaw        uint64 // 48-bit
	BadSystemNANDBlocksNormalized uint16
	XORRecoveryCount              uint64
	UncorrectableReadErrors       uint64
	SoftECCErrors                 uint64
	EndToEndDetectedErrors        uint32
	EndToEndCorrectedErrors       uint32
	SystemDataPercentUsed         uint8
	RefreshCount                  uint64 // 56-bit
	UserDataEraseCountMax         uint32
	UserDataEraseCountMin         uint32
	ThermalThrottlingEvents       uint8
	ThermalThrottlingStatus       uint8
	PCIeCorrectableErrors         uint64
	IncompleteShutdowns           uint32
	PercentFreeBlocks             uint8
	CapacitorHealth               uint16
	UnalignedIO                   uint64
	SecurityVersion               uint64
	TotalNUSE                     uint64
	PLPStartCount                 U128
	EnduranceEstimate             U128
	PCIeLinkRetrainings           uint64
	PowerStateChanges             uint64
	NANDAvgEraseCount             uint64
	CommandTimeouts               uint32

	LogPageVersion uint16
	GUID           [16]byte
}

// ParseOCPSmartExtended decodes a 0xC0 page after checking it really is the
// OCP page; a foreign 0xC0 layout gives an error wrapping ErrGUIDMismatch.
func ParseOCPSmartExtended(b []byte) (OCPSmartExtended, error) {
	const what = "OCP SMART extended log (0xC0)"
	if err := need(what, b, OCPSmartExtendedSize); err != nil {
		return OCPSmartExtended{}, err
	}
	guid := b[ocpGUIDOffset : ocpGUIDOffset+16]
	if [16]byte(guid) != OCPSmartExtendedGUID {
		return OCPSmartExtended{}, fmt.Errorf("decode %s: GUID %X at offset %d is not the OCP GUID %X: %w",
			what, guid, ocpGUIDOffset, OCPSmartExtendedGUID[:], ErrGUIDMismatch)
	}
	o := OCPSmartExtended{GUID: [16]byte(guid)}
	le := binary.LittleEndian
	o.PhysicalMediaUnitsWritten = LE128(b[0:16])
	o.PhysicalMediaUnitsRead = LE128(b[16:32])
	o.BadUserNANDBlocksRaw = LE128(b[32:38]).Lo
	o.BadUserNANDBlocksNormalized = le.Uint16(b[38:])
	o.BadSystemNANDBlocksRaw = LE128(b[40:46]).Lo
	o.BadSystemNANDBlocksNormalized = le.Uint16(b[46:])
	o.XORRecoveryCount = le.Uint64(b[48:])
	o.UncorrectableReadErrors = le.Uint64(b[56:])
	o.SoftECCErrors = le.Uint64(b[64:])
	o.EndToEndDetectedErrors = le.Uint32(b[72:])
	o.EndToEndCorrectedErrors = le.Uint32(b[76:])
	o.SystemDataPercentUsed = b[80]
	o.RefreshCount = LE128(b[81:88]).Lo
	o.UserDataEraseCountMax = le.Uint32(b[88:])
	o.UserDataEraseCountMin = le.Uint32(b[92:])
	o.ThermalThrottlingEvents = b[96]
	o.ThermalThrottlingStatus = b[97]
	o.PCIeCorrectableErrors = le.Uint64(b[104:])
	o.IncompleteShutdowns = le.Uint32(b[112:])
	o.PercentFreeBlocks = b[120]
	o.CapacitorHealth = le.Uint16(b[128:])
	o.UnalignedIO = le.Uint64(b[136:])
	o.SecurityVersion = le.Uint64(b[144:])
	o.TotalNUSE = le.Uint64(b[152:])
	o.PLPStartCount = LE128(b[160:176])
	o.EnduranceEstimate = LE128(b[176:192])
	o.PCIeLinkRetrainings = le.Uint64(b[192:])
	o.PowerStateChanges = le.Uint64(b[200:])
	o.NANDAvgEraseCount = le.Uint64(b[224:])
	o.CommandTimeouts = le.Uint32(b[232:])
	o.LogPageVersion = le.Uint16(b[494:])
	return o, nil
}

// AppendOCPSmartExtended appends o as the 512-byte OCP 0xC0 page, the
// layout ParseOCPSmartExtended reads, with o.GUID at offset 496 (set it
// to OCPSmartExtendedGUID for an OCP page): for a page that parses,
// ParseOCPSmartExtended(AppendOCPSmartExtended(nil, o)) == o. Raw fields
// narrower than their Go type (48-bit, 56-bit) keep their low bytes.
func AppendOCPSmartExtended(b []byte, o OCPSmartExtended) []byte {
	p := make([]byte, OCPSmartExtendedSize)
	le := binary.LittleEndian
	var w [8]byte
	putN := func(off, n int, v uint64) { le.PutUint64(w[:], v); copy(p[off:off+n], w[:n]) }
	PutLE128(p[0:], o.PhysicalMediaUnitsWritten)
	PutLE128(p[16:], o.PhysicalMediaUnitsRead)
	putN(32, 6, o.BadUserNANDBlocksRaw)
	le.PutUint16(p[38:], o.BadUserNANDBlocksNormalized)
	putN(40, 6, o.BadSystemNANDBlocksRaw)
	le.PutUint16(p[46:], o.BadSystemNANDBlocksNormalized)
	le.PutUint64(p[48:], o.XORRecoveryCount)
	le.PutUint64(p[56:], o.UncorrectableReadErrors)
	le.PutUint64(p[64:], o.SoftECCErrors)
	le.PutUint32(p[72:], o.EndToEndDetectedErrors)
	le.PutUint32(p[76:], o.EndToEndCorrectedErrors)
	p[80] = o.SystemDataPercentUsed
	putN(81, 7, o.RefreshCount)
	le.PutUint32(p[88:], o.UserDataEraseCountMax)
	le.PutUint32(p[92:], o.UserDataEraseCountMin)
	p[96], p[97] = o.ThermalThrottlingEvents, o.ThermalThrottlingStatus
	le.PutUint64(p[104:], o.PCIeCorrectableErrors)
	le.PutUint32(p[112:], o.IncompleteShutdowns)
	p[120] = o.PercentFreeBlocks
	le.PutUint16(p[128:], o.CapacitorHealth)
	le.PutUint64(p[136:], o.UnalignedIO)
	le.PutUint64(p[144:], o.SecurityVersion)
	le.PutUint64(p[152:], o.TotalNUSE)
	PutLE128(p[160:], o.PLPStartCount)
	PutLE128(p[176:], o.EnduranceEstimate)
	le.PutUint64(p[192:], o.PCIeLinkRetrainings)
	le.PutUint64(p[200:], o.PowerStateChanges)
	le.PutUint64(p[224:], o.NANDAvgEraseCount)
	le.PutUint32(p[232:], o.CommandTimeouts)
	le.PutUint16(p[494:], o.LogPageVersion)
	copy(p[ocpGUIDOffset:], o.GUID[:])
	return append(b, p...)
}
