package sim

import (
	"encoding/binary"

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
	le := binary.LittleEndian
	nruh := d.model.Config().Streams
	switch lid {
	case logFDPConfigs:
		dsze := 64 + 4*nruh
		b := make([]byte, 16+dsze)
		le.PutUint16(b[0:], 0) // NUMFDPC: one configuration (0-based)
		le.PutUint32(b[4:], uint32(len(b)))
		c := b[16:]
		le.PutUint16(c[0:], uint16(dsze))
		c[2] = 0x80 // FDPA: valid, RGIF 0 (one reclaim group)
		le.PutUint32(c[4:], 1)
		le.PutUint16(c[8:], uint16(nruh))
		le.PutUint16(c[10:], uint16(nruh-1)) // MAXPIDS, 0-based as QEMU reports it
		le.PutUint32(c[12:], 1)
		le.PutUint64(c[16:], uint64(d.cfg.BlockPages)*uint64(d.cfg.PageSize)) // RUNS: one erase block
		for h := 0; h < nruh; h++ {
			c[64+4*h] = 1 // initially isolated
		}
		return b, true
	case logFDPUsage:
		b := make([]byte, 8+8*nruh)
		le.PutUint16(b[0:], uint16(nruh))
		b[8] = 1 << 0 // RUH 0 takes unhinted writes
		if d.placement {
			for _, id := range d.openIDs {
				b[8+8*int(id)] = 1 << 0 // host specified
			}
		}
		return b, true
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
