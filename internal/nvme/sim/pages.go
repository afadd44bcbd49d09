package sim

import (
	"math"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
)

// VendorID is the PCI vendor id the simulator reports: 0x0000 belongs to no
// vendor, so no vendor-keyed layout (e.g. the Huawei-style 0xC0 at VID
// 0x19E5) ever applies to it; the model string says it is simulated.
const VendorID = 0x0000

// Identifiers the simulated controller answers for.
const (
	nsid   = 1 // its one namespace
	endgid = 1 // its one endurance group

	logSMART     = 0x02
	logEndurance = 0x09
	logOCP       = 0xC0

	statusDNR = 0x4000
)

func invalidField(cmd admin.Command) error {
	return admin.NewStatusError(cmd, statusDNR|admin.SCInvalidField)
}

func invalidNS(cmd admin.Command) error {
	return admin.NewStatusError(cmd, statusDNR|admin.SCInvalidNS)
}

// maxTransfer is what MDTS advertises (2^5 x 4 KiB); longer transfers are
// refused as a controller would, which also bounds the reply buffer.
const maxTransfer = 128 << 10

// exec builds the reply. The caller holds d.mu.
func (d *Drive) exec(cmd admin.Command) (admin.Result, error) {
	if cmd.DataLen > maxTransfer {
		return admin.Result{}, invalidField(cmd)
	}
	var page []byte
	switch cmd.Opcode {
	case admin.OpIdentify:
		switch uint8(cmd.CDW10) {
		case admin.CNSController:
			page = d.identifyController()
		case admin.CNSNamespace:
			if cmd.NSID != nsid {
				return admin.Result{}, invalidNS(cmd)
			}
			page = d.identifyNamespace()
		default:
			return admin.Result{}, invalidField(cmd)
		}
		return fit(page, cmd, 0, 0)
	case admin.OpGetLogPage:
		lid, _ := cmd.LogID()
		switch lid {
		case logSMART:
			if cmd.NSID != admin.NSIDAll && cmd.NSID != 0 && cmd.NSID != nsid {
				return admin.Result{}, invalidNS(cmd)
			}
			page = d.smartLog()
		case logOCP:
			page = d.ocpLog()
		case logEndurance:
			if cmd.LSI() != endgid {
				return admin.Result{}, invalidField(cmd)
			}
			page = d.enduranceLog()
		default:
			p, ok := d.fdpLog(lid)
			if !d.cfg.FDP || !ok {
				return admin.Result{}, admin.Unsupported(cmd)
			}
			if cmd.LSI() != endgid {
				return admin.Result{}, invalidField(cmd)
			}
			page = p
		}
		return fit(page, cmd, cmd.LogOffset(), 0)
	case admin.OpDirectiveReceive:
		if cmd.NSID != nsid {
			return admin.Result{}, invalidNS(cmd)
		}
		doper, dtype := uint8(cmd.CDW11), uint8(cmd.CDW11>>8)
		switch {
		case dtype == 0 && doper == 1:
			page = d.directivesIdentify()
		case dtype == 1 && doper == 1:
			page = d.streamsParams()
		case dtype == 1 && doper == 2:
			page = d.streamsStatus()
		default:
			return admin.Result{}, invalidField(cmd)
		}
		return fit(page, cmd, 0, 0)
	case admin.OpGetFeatures:
		if d.cfg.FDP && uint8(cmd.CDW10) == featFDP && (cmd.CDW10>>8)&7 == 0 {
			return d.fdpFeature(cmd)
		}
	}
	// No other feature is emulated.
	return admin.Result{}, admin.Unsupported(cmd)
}

// fit returns DataLen bytes of page from offset, zero-padded past its end,
// as a controller transfers a log longer than it implements; dw0 is the
// completion dword 0.
func fit(page []byte, cmd admin.Command, offset uint64, dw0 uint32) (admin.Result, error) {
	if offset > uint64(len(page)) {
		return admin.Result{}, invalidField(cmd)
	}
	out := make([]byte, cmd.DataLen)
	copy(out, page[offset:])
	return admin.Result{Data: out, DW0: dw0}, nil
}

func (d *Drive) lbaSize() uint64 {
	if d.cfg.PageSize >= 4096 {
		return 4096
	}
	return uint64(d.cfg.PageSize)
}

func (d *Drive) capacityBytes() uint64 {
	return uint64(d.model.Config().LogicalPages) * uint64(d.cfg.PageSize) * d.cfg.Scale
}

func (d *Drive) physicalBytes() uint64 {
	return d.model.PhysicalPages() * uint64(d.cfg.PageSize) * d.cfg.Scale
}

func (d *Drive) identifyController() []byte {
	ctratt := uint32(1 << 4) // CTRATT: endurance groups
	if d.cfg.FDP {
		ctratt |= 1 << 19 // FDPS
	}
	return decode.AppendIDController(nil, decode.IDController{
		VID: VendorID, SSVID: VendorID,
		Serial: d.cfg.Serial, Model: Model, Firmware: d.cfg.Firmware,
		MDTS:      5, // 2^5 x 4 KiB = 128 KiB
		CNTLID:    1,
		VER:       0x00020000, // NVMe 2.0
		CTRATT:    ctratt,
		CNTRLTYPE: 1,      // I/O controller
		OACS:      1 << 5, // directives (Streams emulated)
		LPA:       1 << 2, // extended data for Get Log Page
		WCTEMP:    343,    // 70 C
		CCTEMP:    358,    // 85 C
		TNVMCAP:   decode.U128From(d.capacityBytes()),
		ENDGIDMAX: 1,
		MEGCAP:    decode.U128From(d.physicalBytes()),
		NN:        1,
		SUBNQN:    "nqn.2026-12.io.walab:sim:" + d.cfg.Serial,
	})
}

func (d *Drive) identifyNamespace() []byte {
	lba := d.lbaSize()
	blocks := d.capacityBytes() / lba
	used := d.model.Counters().ValidPages * uint64(d.cfg.PageSize) * d.cfg.Scale / lba
	// Thin provisioning (NSFEAT bit 0), so NUSE tracks the mapped
	// (untrimmed) blocks; one LBA format.
	return decode.AppendIDNamespace(nil, decode.IDNamespace{NSZE: blocks, NCAP: blocks, NUSE: used,
		NVMCAP: decode.U128From(d.capacityBytes()), ENDGID: endgid, LBADataSize: uint32(lba)}, true)
}

// percentUsed is the average erase count over the rated cycles (255 = at or past 255%).
func (d *Drive) percentUsed() uint8 {
	p := d.model.Wear().Avg * 100 / float64(d.cfg.PECycles)
	return uint8(min(math.Ceil(p), 255))
}

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }

func (d *Drive) smartLog() []byte {
	s := d.stats()
	return decode.AppendSMART(nil, decode.SMART{
		TemperatureKelvin:       313, // 40 C
		AvailableSpare:          100,
		AvailableSpareThreshold: 10,
		PercentageUsed:          d.percentUsed(),
		DataUnitsWritten:        decode.U128From(ceilDiv(s.HostBytes, decode.DataUnitBytes)), // 1000 x 512 B, rounded up
		HostWriteCommands:       decode.U128From(s.HostWriteCommands),
		PowerCycles:             decode.U128From(1),
		PowerOnHours:            decode.U128From(uint64((d.base.SimulatedSeconds + d.simSeconds) / 3600)),
		TempSensorsKelvin:       [8]uint16{313},
	})
}

func (d *Drive) ocpLog() []byte {
	s := d.stats()
	w := d.model.Wear()
	return decode.AppendOCPSmartExtended(nil, decode.OCPSmartExtended{
		PhysicalMediaUnitsWritten:     decode.U128From(s.MediaBytes), // bytes
		BadUserNANDBlocksNormalized:   100,
		BadSystemNANDBlocksNormalized: 100,
		UserDataEraseCountMax:         w.Max,
		UserDataEraseCountMin:         w.Min,
		PercentFreeBlocks:             uint8(100 * d.model.FreeBlocks() / int(d.model.PhysicalBlocks())),
		TotalNUSE:                     d.nuse(),
		NANDAvgEraseCount:             uint64(math.Round(w.Avg)),
		LogPageVersion:                4, // all fields defined
		GUID:                          decode.OCPSmartExtendedGUID,
	})
}

func (d *Drive) nuse() uint64 {
	return d.model.Counters().ValidPages * uint64(d.cfg.PageSize) * d.cfg.Scale / d.lbaSize()
}

func (d *Drive) enduranceLog() []byte {
	s := d.stats()
	const unit = decode.EnduranceUnitBytes // endurance group data units are 10^9 bytes
	return decode.AppendEnduranceGroup(nil, decode.EnduranceGroup{
		AvailableSpare:          100,
		AvailableSpareThreshold: 10,
		PercentageUsed:          d.percentUsed(),
		EnduranceEstimate:       decode.U128From(d.physicalBytes() / unit * uint64(d.cfg.PECycles)),
		DataUnitsWritten:        decode.U128From(ceilDiv(s.HostBytes, unit)),
		MediaUnitsWritten:       decode.U128From(ceilDiv(s.MediaBytes, unit)),
		HostWriteCommands:       decode.U128From(s.HostWriteCommands),
		TotalCapacity:           decode.U128From(d.physicalBytes()),
	})
}

func (d *Drive) directivesIdentify() []byte {
	var di decode.DirectivesIdentify
	decode.SetBit(&di.Supported, decode.DirectiveIdentify)
	decode.SetBit(&di.Supported, decode.DirectiveStreams)
	decode.SetBit(&di.Enabled, decode.DirectiveIdentify)
	if d.placement {
		decode.SetBit(&di.Enabled, decode.DirectiveStreams) // streams enabled while placement is on
	}
	if d.cfg.FDP {
		decode.SetBit(&di.Supported, decode.DirectiveDataPlacement) // data placement supported
		decode.SetBit(&di.Enabled, decode.DirectiveDataPlacement)   // and enabled: FDP is on for the endurance group
	}
	return decode.AppendDirectivesIdentify(nil, di)
}

func (d *Drive) streamsParams() []byte {
	maxStreams := uint16(d.model.Config().Streams - 1)
	open := uint16(d.openStreams())
	lba := d.lbaSize()
	sws := max(16384/lba, 1) // stream write size: a 16 KiB NAND page
	blockBytes := uint64(d.cfg.BlockPages) * uint64(d.cfg.PageSize)
	sp := decode.StreamsParams{MSL: maxStreams, NSSA: maxStreams, NSSO: open, SWS: uint32(sws),
		SGS: uint16(min(blockBytes/(sws*lba), math.MaxUint16)), // an erase block
		NSO: open}
	if d.placement {
		sp.NSA = maxStreams
	}
	return decode.AppendStreamsParams(nil, sp)
}

func (d *Drive) streamsStatus() []byte {
	return decode.AppendStreamsStatus(nil, d.openIDs[:d.openStreams()])
}
