package probe

import (
	"context"
	"errors"
	"fmt"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
)

// The standard sources: their units are the specification's.

// fdpSource is the FDP Statistics log (0x22) of the endurance group:
// host and media bytes with metadata, byte-granular.
type fdpSource struct{}

func (fdpSource) Name() string        { return SourceFDP }
func (fdpSource) UnitConfirmed() bool { return true }
func (fdpSource) Applies(p *Plan) bool {
	return p.Ctrl.FDPSupported() && p.EndGID != 0
}

// Check: supported is not enabled. A drive with FDP off may still serve the
// statistics log, all zeros. Get Features FDP (0x1D) DW0 bit 0 says; a
// controller that rejects the feature is given the benefit of the doubt and
// judged by the log alone.
func (fdpSource) Check(ctx context.Context, p *Plan, r *Reader) error {
	res, err := r.submit(ctx, "Get Features FDP", admin.GetFeatures(decode.FeatureFDP, 0, uint32(p.EndGID), 0))
	if err != nil {
		if isStatus(err) {
			return nil
		}
		return err
	}
	if !decode.ParseFDPFeature(res.DW0).Enabled {
		return decodeErr(fmt.Errorf("FDP is supported but not enabled on endurance group %d (Get Features 0x1D dword 0 = 0x%x)", p.EndGID, res.DW0))
	}
	return nil
}

func (fdpSource) Read(ctx context.Context, p *Plan, r *Reader) (NAND, error) {
	b, err := r.Log(ctx, "FDP statistics log", admin.LogPage{LID: decode.LogFDPStatistics, LSI: p.EndGID, Len: decode.FDPStatsSize}, p.Extended())
	if err != nil {
		return NAND{}, err
	}
	s, err := decode.ParseFDPStats(b)
	if err != nil {
		return NAND{}, decodeErr(err)
	}
	return NAND{Host: &s.HostBytesWithMetadataWritten, Media: &s.MediaBytesWithMetadataWritten}, nil
}

// ocpSource is the OCP SMART extended log (0xC0): Physical Media Units
// Written, in bytes. No Identify bit announces it: the GUID on the page
// decides.
type ocpSource struct{}

func (ocpSource) Name() string                                { return SourceOCP }
func (ocpSource) UnitConfirmed() bool                         { return true }
func (ocpSource) Applies(*Plan) bool                          { return true }
func (ocpSource) Check(context.Context, *Plan, *Reader) error { return nil }

func (ocpSource) Read(ctx context.Context, p *Plan, r *Reader) (NAND, error) {
	lp := admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Len: decode.OCPSmartExtendedSize, UUIDX: p.UUIDs.Index(decode.OCPUUID)}
	b, err := r.Log(ctx, "OCP SMART extended log", lp, p.Extended())
	if err != nil {
		return NAND{}, err
	}
	o, err := decode.ParseOCPSmartExtended(b)
	if err != nil {
		return NAND{}, decodeErr(err)
	}
	return NAND{Media: &o.PhysicalMediaUnitsWritten}, nil
}

// enduranceSource is the Endurance Group Information log (0x09): data and
// media units written, in units of 10^9 bytes.
type enduranceSource struct{}

func (enduranceSource) Name() string                                { return SourceEnduranceGroup }
func (enduranceSource) UnitConfirmed() bool                         { return true }
func (enduranceSource) Check(context.Context, *Plan, *Reader) error { return nil }
func (enduranceSource) Applies(p *Plan) bool {
	return p.Ctrl.EnduranceGroups() && p.EndGID != 0
}

func (enduranceSource) Read(ctx context.Context, p *Plan, r *Reader) (NAND, error) {
	b, err := r.Log(ctx, "Endurance Group log", admin.LogPage{LID: 0x09, LSI: p.EndGID, Len: decode.EnduranceGroupSize}, p.Extended())
	if err != nil {
		return NAND{}, err
	}
	e, err := decode.ParseEnduranceGroup(b)
	if err != nil {
		return NAND{}, decodeErr(err)
	}
	h, ok1 := e.HostWrittenBytes()
	m, ok2 := e.MediaWrittenBytes()
	if !ok1 || !ok2 {
		return NAND{}, decodeErr(errors.New("endurance group units overflow 128 bits"))
	}
	return NAND{Host: &h, Media: &m}, nil
}
