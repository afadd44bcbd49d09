package sim

import (
	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
)

// Flexible Data Placement (TP4146) emulation, on with `fdp: true`. The
// model's write streams are the reclaim unit handles (RUH i = stream i) in
// one reclaim group; the statistics come from the same counters as OCP 0xC0,
// so a probe that prefers FDP sees the same WA.
const (
	logFDPConfigs = 0x20
	logFDPUsage   = 0x21
	logFDPStats   = 0x22
	logFDPEvents  = 0x23
	featFDP       = 0x1D
)

// fdpLog builds one of the FDP logs; false for a log id it does not know.
func (d *Drive) fdpLog(lid uint8) ([]byte, bool) {
	nruh := d.model.Config().Streams
	switch lid {
	case logFDPConfigs:
		types := make([]uint8, nruh)
		for h := range types {
			types[h] = 1 // initially isolated
		}
		return decode.AppendFDPConfigs(nil, decode.FDPConfigs{Configs: []decode.FDPConfig{{
			Valid: true, RGIF: 0, NRG: 1, // one reclaim group
			MaxPIDs:                uint16(nruh - 1), // 0-based, as QEMU reports it
			NNSS:                   1,
			ReclaimUnitNominalSize: uint64(d.cfg.BlockPages) * uint64(d.cfg.PageSize), // RUNS: one erase block
			RUHTypes:               types,
		}}}), true
	case logFDPUsage:
		attrs := make([]uint8, nruh)
		attrs[0] = 1 << 0 // RUH 0 takes unhinted writes
		if d.placement {
			for _, id := range d.openIDs {
				attrs[id] = 1 << 0 // host specified
			}
		}
		return decode.AppendRUHUsage(nil, decode.RUHUsage{Attributes: attrs}), true
	case logFDPStats:
		s := d.stats()
		return decode.AppendFDPStats(nil, decode.FDPStats{HostBytesWithMetadataWritten: decode.U128From(s.HostBytes),
			MediaBytesWithMetadataWritten: decode.U128From(s.MediaBytes),
			MediaBytesErased:              decode.U128From(s.Erases * uint64(d.cfg.BlockPages) * uint64(d.cfg.PageSize))}), true
	case logFDPEvents:
		return make([]byte, 64), true // no events recorded
	}
	return nil, false
}

// fdpFeature answers Get Features 0x1D for endurance group 1: FDP enabled,
// configuration index 0.
func (d *Drive) fdpFeature(cmd admin.Command) (admin.Result, error) {
	if uint16(cmd.CDW11) != endgid {
		return admin.Result{}, invalidField(cmd)
	}
	return fit(nil, cmd, 0, 1)
}
