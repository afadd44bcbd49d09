package probe

import (
	"context"
	"fmt"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
)

// layoutSource is a declarative vendor layout (built in, or from the
// config): the page it names, decoded by its fields. Adding a drive family
// is one decode.Layout entry; this type reads every one.
type layoutSource struct{ l decode.Layout }

func (s layoutSource) Name() string                              { return s.l.Name }
func (s layoutSource) UnitConfirmed() bool                       { return s.l.UnitConfirmed }
func (s layoutSource) Applies(p *Plan) bool                      { return s.l.Matches(p.Ctrl) }
func (layoutSource) Check(context.Context, *Plan, *Reader) error { return nil }

func (s layoutSource) Read(ctx context.Context, p *Plan, r *Reader) (NAND, error) {
	l := s.l
	lp := admin.LogPage{LID: l.LogID, NSID: l.EffectiveNSID(), Len: l.Length}
	if l.UUID != "" {
		if u, err := decode.ParseUUID(l.UUID); err == nil {
			lp.UUIDX = p.UUIDs.Index(u)
		}
	}
	b, err := r.Log(ctx, "vendor log (layout "+l.Name+")", lp, p.Extended())
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
}
