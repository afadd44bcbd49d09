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

	nand NANDSource // the chosen source; nil for SourceNone
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
	if err := p.identifyUUIDs(ctx, r); err != nil {
		return nil, err
	}
	if err := p.identifyNamespaces(ctx, r, nsids); err != nil {
		return nil, err
	}
	if want := cfg.SourceFor(r.Dev.Name()); want != SourceAuto {
		return p.forceSource(ctx, r, Sources(cfg), want)
	}
	return p.pickSource(ctx, r, Sources(cfg))
}

// identifyUUIDs reads the Identify UUID List when the controller has one;
// a status leaves it empty.
func (p *Plan) identifyUUIDs(ctx context.Context, r *Reader) error {
	if !p.Ctrl.UUIDListSupported() {
		return nil
	}
	raw, err := r.Identify(ctx, "Identify UUID List", admin.CNSUUIDList, 0)
	switch {
	case err == nil:
		if l, derr := decode.ParseUUIDList(raw); derr == nil {
			p.UUIDs = l
		}
	case !isStatus(err):
		return err
	}
	return nil
}

// identifyNamespaces reads the namespaces nsids (namespace 1 when none is
// listed), skipping those answered with a status or undecodable, and takes
// the endurance group from the first that names one (else group 1 when
// the controller has endurance groups or FDP).
func (p *Plan) identifyNamespaces(ctx context.Context, r *Reader, nsids []uint32) error {
	if len(nsids) == 0 && p.Ctrl.NN >= 1 {
		nsids = []uint32{1} // nothing listed (explicit device): the usual single namespace
	}
	for _, nsid := range nsids {
		raw, err := r.Identify(ctx, fmt.Sprintf("Identify Namespace %d", nsid), admin.CNSNamespace, nsid)
		if err != nil {
			if !isStatus(err) {
				return err
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
	ctrl := p.Ctrl
	if p.EndGID == 0 && ctrl.ENDGIDMAX >= 1 && (ctrl.EnduranceGroups() || ctrl.FDPSupported()) {
		p.EndGID = 1
	}
	return nil
}

// forceSource takes the configured source want of cands: it must read, and
// apply to this controller unless it is SourceNone.
func (p *Plan) forceSource(ctx context.Context, r *Reader, cands []NANDSource, want string) (*Plan, error) {
	p.Forced = true
	for _, c := range cands {
		if c.Name() != want {
			continue
		}
		if err := probeRead(ctx, c, p, r); err != nil {
			return nil, fmt.Errorf("%s: configured source %q is not usable: %w", r.Dev.Name(), want, err)
		}
		p.choose(c)
		return p, nil
	}
	if want == SourceNone {
		p.Source = SourceNone
		return p, nil
	}
	ctrl := p.Ctrl
	return nil, fmt.Errorf("%s: configured source %q does not apply to this controller (VID 0x%04X, model %q, CTRATT 0x%x)", r.Dev.Name(), want, ctrl.VID, ctrl.Model, ctrl.CTRATT)
}

// pickSource takes the first of cands that applies and reads, recording
// why each one before it was rejected; SourceNone when none does.
func (p *Plan) pickSource(ctx context.Context, r *Reader, cands []NANDSource) (*Plan, error) {
	for _, c := range cands {
		if !c.Applies(p) {
			continue
		}
		err := probeRead(ctx, c, p, r)
		if err == nil {
			p.choose(c)
			return p, nil
		}
		if isStatus(err) || isDecode(err) {
			p.Rejected = append(p.Rejected, fmt.Sprintf("%s: %v", c.Name(), err))
			continue
		}
		return nil, err
	}
	p.Source = SourceNone
	return p, nil
}

// NANDSource is one place a controller's NAND (media) write counter comes
// from: the standard logs (sources_std.go) or a vendor layout
// (source_layout.go). Sources lists them in preference order.
type NANDSource interface {
	// Name is the source label (SourceFDP, a layout name, ...).
	Name() string
	// Applies says whether automatic probing tries the source on this
	// controller, from its Identify data (a forced source is tried
	// regardless).
	Applies(p *Plan) bool
	// Check runs once at probe time before the first read (nil: nothing
	// to check).
	Check(ctx context.Context, p *Plan, r *Reader) error
	// Read reads the counters through r, the poller's one read path.
	Read(ctx context.Context, p *Plan, r *Reader) (NAND, error)
	// UnitConfirmed: two public sources agree on the counters' unit.
	UnitConfirmed() bool
}

// Sources lists every NAND source in preference order: FDP statistics,
// OCP 0xC0, the vendor layouts (configured first, then built in), the
// Endurance Group log.
func Sources(cfg Config) []NANDSource {
	out := []NANDSource{fdpSource{}, ocpSource{}}
	for _, l := range cfg.AllLayouts() {
		out = append(out, layoutSource{l})
	}
	return append(out, enduranceSource{})
}

// probeRead is a source's probe-time read: its check, then one read.
func probeRead(ctx context.Context, c NANDSource, p *Plan, r *Reader) error {
	if err := c.Check(ctx, p, r); err != nil {
		return err
	}
	_, err := c.Read(ctx, p, r)
	return err
}

// choose makes c the plan's source.
func (p *Plan) choose(c NANDSource) {
	p.Source, p.nand, p.UnitUnconfirmed = c.Name(), c, !c.UnitConfirmed()
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
