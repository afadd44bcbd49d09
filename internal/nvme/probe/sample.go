package probe

import (
	"context"
	"fmt"
	"time"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
)

// Sample is one poll of a controller. Counters stay 128-bit here; they
// become float64 only at exposition.
type Sample struct {
	Time   time.Time
	Source string
	SMART  decode.SMART
	// SMARTHostBytes is SMART Data Units Written x 512000.
	SMARTHostBytes decode.U128
	// HostBytes is the source's own host counter where it has one (so that
	// NAND / host uses one source), else SMARTHostBytes.
	HostBytes decode.U128
	// MediaBytes and GCBytes are nil when the source does not report them.
	MediaBytes, GCBytes *decode.U128
	// NamespaceHostBytes is each namespace's Data Units Written x 512000,
	// from the SMART log read with the namespace's NSID (Identify LPA bit
	// 0), for a controller with more than one namespace; a namespace whose
	// read failed this poll is absent, and so is the map when the
	// controller keeps SMART only for itself.
	NamespaceHostBytes map[uint32]decode.U128
	// SourceErr is set when SMART was read but the plan's NAND source was
	// not: the source's counters (HostBytes included, which then holds the
	// SMART value) are absent for this poll. The source is kept; the next
	// poll tries it again.
	SourceErr error
}

// SourceUp reports whether the plan's NAND source was read in this poll
// (false also for source none, which has nothing to read).
func (s *Sample) SourceUp() bool { return s.Source != SourceNone && s.SourceErr == nil }

// Poll reads SMART and the plan's NAND source once.
func Poll(ctx context.Context, r *Reader, p *Plan, now time.Time) (*Sample, error) {
	b, err := r.Log(ctx, "SMART log", admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: decode.SMARTSize}, p.Extended())
	if err != nil {
		return nil, err
	}
	sm, err := decode.ParseSMART(b)
	if err != nil {
		return nil, &ReadError{Device: r.Dev.Name(), What: "SMART log", Err: err}
	}
	host, ok := sm.HostWrittenBytes()
	if !ok {
		return nil, &ReadError{Device: r.Dev.Name(), What: "SMART log", Err: fmt.Errorf("data units written %s x 512000 overflows 128 bits", sm.DataUnitsWritten)}
	}
	s := &Sample{Time: now, Source: p.Source, SMART: sm, SMARTHostBytes: host, HostBytes: host}
	s.NamespaceHostBytes = namespaceWritten(ctx, r, p)
	if p.nand == nil {
		return s, nil
	}
	n, err := p.nand.Read(ctx, p, r)
	if err != nil {
		s.SourceErr = fmt.Errorf("%s: NAND source %s: %w", r.Dev.Name(), p.Source, err)
		return s, nil
	}
	if n.Host != nil {
		s.HostBytes = *n.Host
	}
	s.MediaBytes, s.GCBytes = n.Media, n.GC
	return s, nil
}

// namespaceWritten reads each namespace's own SMART log (LPA bit 0) when
// the controller has more than one namespace: which namespace took the
// host's writes, the drive's own count. A namespace whose read fails is
// left out; nil when there is nothing to read.
func namespaceWritten(ctx context.Context, r *Reader, p *Plan) map[uint32]decode.U128 {
	if !p.Ctrl.SMARTPerNamespace() || len(p.Namespaces) < 2 {
		return nil
	}
	out := make(map[uint32]decode.U128, len(p.Namespaces))
	for nsid := range p.Namespaces {
		b, err := r.Log(ctx, fmt.Sprintf("SMART log of namespace %d", nsid), admin.LogPage{LID: 0x02, NSID: nsid, Len: decode.SMARTSize}, p.Extended())
		if err != nil {
			continue
		}
		sm, err := decode.ParseSMART(b)
		if err != nil {
			continue
		}
		if host, ok := sm.HostWrittenBytes(); ok {
			out[nsid] = host
		}
	}
	return out
}
