// Package probe decides, once per controller, where its NAND (media) write
// counter comes from, then reads SMART plus that source on every poll. The
// Poller in front of it caches and deduplicates reads across scrapes.
package probe

import (
	"context"
	"errors"
	"fmt"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
)

// NAND is what a source reports, each in bytes; nil when the source lacks it.
type NAND struct {
	Host, Media, GC *decode.U128
}

// Plan is the outcome of probing one controller. It is immutable and reused
// for every poll, so pages found unsupported are never sent again.
type Plan struct {
	Ctrl       decode.IDController
	Namespaces map[uint32]decode.IDNamespace
	EndGID     uint16 // endurance group used for FDP / 0x09 (0: none)
	// UUIDs is the Identify UUID List (empty without CTRATT bit 9): vendor
	// logs are read under their UUID's index (CDW14), as nvme-cli does.
	UUIDs  decode.UUIDList
	Source string // SourceFDP, SourceOCP, a layout name, SourceEnduranceGroup or SourceNone
	Forced bool   // the source came from the config, not from probing
	// UnitUnconfirmed: the source is a vendor layout whose byte unit no
	// two public sources agree on (docs/nvme-decoders.md); its byte
	// counters may be off by that unit, its WA (a ratio of two counters in
	// one unit) is not.
	UnitUnconfirmed bool
	// Rejected says why each better source was not taken (for the log).
	Rejected []string

	read func(ctx context.Context, r *Reader) (NAND, error)
}

// Extended reports Identify LPA bit 2: the controller accepts log page offsets.
func (p *Plan) Extended() bool { return p.Ctrl.ExtendedLogData() }

// Probe identifies the controller and its namespaces and picks the best NAND
// source, or the configured one. The preference is: FDP statistics (0x22),
// OCP SMART extended (0xC0, GUID checked), vendor layouts whose match fits
// (configured first, then built-in, e.g. seed000_c0 for VID 0x19E5 and
// intel_ca), the Endurance Group log (0x09), else none (SMART only).
//
// A candidate whose page the controller answers with any NVMe status is
// absent; an error that is not a status (EACCES, I/O) fails the probe so it
// is retried on the next poll rather than settling on a worse source.
func Probe(ctx context.Context, r *Reader, nsids []uint32, cfg Config) (*Plan, error) {
	raw, err := r.Identify(ctx, "Identify Controller", admin.CNSController, 0)
	if err != nil {
		return nil, err
	}
	ctrl, err := decode.ParseIDController(raw)
	if err != nil {
		return nil, &ReadError{Device: r.Dev.Name(), What: "Identify Controller", Err: err}
	}
	p := &Plan{Ctrl: ctrl, Namespaces: map[uint32]decode.IDNamespace{}}
	if ctrl.UUIDListSupported() {
		raw, err := r.Identify(ctx, "Identify UUID List", admin.CNSUUIDList, 0)
		switch {
		case err == nil:
			if l, derr := decode.ParseUUIDList(raw); derr == nil {
				p.UUIDs = l
			}
		case !isStatus(err):
			return nil, err
		}
	}
	if len(nsids) == 0 && ctrl.NN >= 1 {
		nsids = []uint32{1} // nothing listed (explicit device): the usual single namespace
	}
	for _, nsid := range nsids {
		raw, err := r.Identify(ctx, fmt.Sprintf("Identify Namespace %d", nsid), admin.CNSNamespace, nsid)
		if err != nil {
			if !isStatus(err) {
				return nil, err
			}
			continue
		}
		ns, err := decode.ParseIDNamespace(raw)
		if err != nil {
			continue
		}
		p.Namespaces[nsid] = ns
		if p.EndGID == 0 && ns.ENDGID != 0 {
			p.EndGID = ns.ENDGID
		}
	}
	if p.EndGID == 0 && ctrl.ENDGIDMAX >= 1 && (ctrl.EnduranceGroups() || ctrl.FDPSupported()) {
		p.EndGID = 1
	}

	cands := candidates(p, cfg)
	want := cfg.SourceFor(r.Dev.Name())
	if want != SourceAuto {
		p.Forced = true
		for _, c := range cands {
			if c.name != want {
				continue
			}
			if err := c.probeRead(ctx, r); err != nil {
				return nil, fmt.Errorf("%s: configured source %q is not usable: %w", r.Dev.Name(), want, err)
			}
			p.Source, p.read, p.UnitUnconfirmed = c.name, c.read, c.unconfirmed
			return p, nil
		}
		if want == SourceNone {
			p.Source = SourceNone
			return p, nil
		}
		return nil, fmt.Errorf("%s: configured source %q does not apply to this controller (VID 0x%04X, model %q, CTRATT 0x%x)", r.Dev.Name(), want, ctrl.VID, ctrl.Model, ctrl.CTRATT)
	}
	for _, c := range cands {
		if !c.applies {
			continue
		}
		err := c.probeRead(ctx, r)
		if err == nil {
			p.Source, p.read, p.UnitUnconfirmed = c.name, c.read, c.unconfirmed
			return p, nil
		}
		if isStatus(err) || isDecode(err) {
			p.Rejected = append(p.Rejected, fmt.Sprintf("%s: %v", c.name, err))
			continue
		}
		return nil, err
	}
	p.Source = SourceNone
	return p, nil
}

type candidate struct {
	name        string
	unconfirmed bool // a vendor layout whose unit is not confirmed
	applies     bool // the controller advertises it (or the layout's match fits)
	// check, when set, runs once at probe time before the first read.
	check func(ctx context.Context, r *Reader) error
	read  func(ctx context.Context, r *Reader) (NAND, error)
}

// probeRead is a candidate's probe-time read: its check, then one read.
func (c candidate) probeRead(ctx context.Context, r *Reader) error {
	if c.check != nil {
		if err := c.check(ctx, r); err != nil {
			return err
		}
	}
	_, err := c.read(ctx, r)
	return err
}

// candidates lists every source in preference order. applies says whether
// automatic probing tries it; a forced source is tried regardless.
func candidates(p *Plan, cfg Config) []candidate {
	ext := p.Extended()
	endgid := p.EndGID
	out := []candidate{{
		name:    SourceFDP,
		applies: p.Ctrl.FDPSupported() && endgid != 0,
		check: func(ctx context.Context, r *Reader) error {
			// Supported is not enabled: a drive with FDP off may still serve
			// the statistics log, all zeros. Get Features FDP (0x1D) DW0 bit 0
			// says; a controller that rejects the feature is given the
			// benefit of the doubt and judged by the log alone.
			res, err := r.submit(ctx, "Get Features FDP", admin.GetFeatures(decode.FeatureFDP, 0, uint32(endgid), 0))
			if err != nil {
				if isStatus(err) {
					return nil
				}
				return err
			}
			if res.DW0&1 == 0 {
				return decodeErr(fmt.Errorf("FDP is supported but not enabled on endurance group %d (Get Features 0x1D dword 0 = 0x%x)", endgid, res.DW0))
			}
			return nil
		},
		read: func(ctx context.Context, r *Reader) (NAND, error) {
			b, err := r.Log(ctx, "FDP statistics log", admin.LogPage{LID: decode.LogFDPStatistics, LSI: endgid, Len: decode.FDPStatsSize}, ext)
			if err != nil {
				return NAND{}, err
			}
			s, err := decode.ParseFDPStats(b)
			if err != nil {
				return NAND{}, decodeErr(err)
			}
			return NAND{Host: &s.HostBytesWithMetadataWritten, Media: &s.MediaBytesWithMetadataWritten}, nil
		},
	}, {
		name:    SourceOCP,
		applies: true, // no Identify bit: the GUID on the page decides
		read: func(ctx context.Context, r *Reader) (NAND, error) {
			lp := admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Len: decode.OCPSmartExtendedSize, UUIDX: p.UUIDs.Index(decode.OCPUUID)}
			b, err := r.Log(ctx, "OCP SMART extended log", lp, ext)
			if err != nil {
				return NAND{}, err
			}
			o, err := decode.ParseOCPSmartExtended(b)
			if err != nil {
				return NAND{}, decodeErr(err)
			}
			return NAND{Media: &o.PhysicalMediaUnitsWritten}, nil
		},
	}}
	for _, l := range cfg.AllLayouts() {
		out = append(out, candidate{
			name:        l.Name,
			unconfirmed: !l.UnitConfirmed,
			applies:     l.Matches(p.Ctrl),
			read: func(ctx context.Context, r *Reader) (NAND, error) {
				lp := admin.LogPage{LID: l.LogID, NSID: l.EffectiveNSID(), Len: l.Length}
				if l.UUID != "" {
					if u, err := decode.ParseUUID(l.UUID); err == nil {
						lp.UUIDX = p.UUIDs.Index(u)
					}
				}
				b, err := r.Log(ctx, "vendor log (layout "+l.Name+")", lp, ext)
				if err != nil {
					return NAND{}, err
				}
				vc, err := l.Decode(b)
				if err != nil {
					return NAND{}, decodeErr(err)
				}
				if vc.MediaWritten == nil {
					return NAND{}, decodeErr(fmt.Errorf("layout %s yields no media bytes", l.Name))
				}
				return NAND{Host: vc.HostWritten, Media: vc.MediaWritten, GC: vc.GCWritten}, nil
			},
		})
	}
	out = append(out, candidate{
		name:    SourceEnduranceGroup,
		applies: p.Ctrl.EnduranceGroups() && endgid != 0,
		read: func(ctx context.Context, r *Reader) (NAND, error) {
			b, err := r.Log(ctx, "Endurance Group log", admin.LogPage{LID: 0x09, LSI: endgid, Len: decode.EnduranceGroupSize}, ext)
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
		},
	})
	return out
}

// decodeError marks a page that was read but is not what the source expects
// (wrong GUID, short page): for probing, the source is absent.
type decodeError struct{ err error }

func (e *decodeError) Error() string { return e.err.Error() }
func (e *decodeError) Unwrap() error { return e.err }

func decodeErr(err error) error { return &decodeError{err} }

func isDecode(err error) bool {
	var d *decodeError
	return errors.As(err, &d)
}

func isStatus(err error) bool {
	var s *admin.StatusError
	return errors.As(err, &s)
}
