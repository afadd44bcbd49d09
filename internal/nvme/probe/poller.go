package probe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/walab/walab/internal/nvme/admin"
)

// DefaultMaxAge is how long a poll result (or failure) is served to
// scrapes before the device is read again.
const DefaultMaxAge = 5 * time.Second

// Poller owns one controller's reads: it probes once, then polls at most
// once per MaxAge no matter how many scrapes (or the WA sampler) ask, and
// concurrent callers share the one read in flight.
type Poller struct {
	name   string
	reader Reader
	nsids  []uint32
	cfg    Config
	maxAge time.Duration
	now    func() time.Time

	mu   sync.Mutex
	plan *Plan
	// sourceErrs counts failed reads of the plan's source by ErrorReason.
	sourceErrs map[string]uint64

	samples   flight[*Sample]
	placement pollerPlacement
}

// ErrHung is a device whose read in flight already outlasted a caller's
// deadline: it is served as down at once, without waiting again, until
// that read ends.
var ErrHung = errors.New("device hung: a read in flight already outlasted a deadline")

// Options configure a Poller.
type Options struct {
	MaxAge time.Duration    // 0: DefaultMaxAge; negative: no caching (every call reads)
	Now    func() time.Time // tests
	Chunk  uint32           // log transfer size (0: DefaultChunk)
}

// NewPoller builds the poller for one controller with its known namespaces.
func NewPoller(dev *admin.Device, nsids []uint32, cfg Config, o Options) *Poller {
	if o.MaxAge == 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Poller{
		name:   dev.Name(),
		reader: Reader{Dev: dev, Chunk: o.Chunk},
		nsids:  append([]uint32(nil), nsids...),
		cfg:    cfg,
		maxAge: o.MaxAge,
		now:    o.Now,

		sourceErrs: map[string]uint64{},
		samples:    flight[*Sample]{maxAge: o.MaxAge, now: o.Now},
	}
}

// Name is the controller name.
func (p *Poller) Name() string { return p.name }

// Device is the guarded handle (for its command statistics).
func (p *Poller) Device() *admin.Device { return p.reader.Dev }

// Plan returns the probe result, or nil before the first successful probe.
func (p *Poller) Plan() *Plan {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.plan
}

// Sample returns a poll no older than MaxAge, reading the device if needed.
// A failure is cached for MaxAge as well, so a broken device is not hammered
// by every scrape.
func (p *Poller) Sample(ctx context.Context) (*Sample, error) {
	return p.samples.get(ctx, p.name, func(ctx context.Context) (*Sample, error) {
		p.mu.Lock()
		plan := p.plan
		p.mu.Unlock()
		s, plan, err := p.read(ctx, plan)
		p.mu.Lock()
		p.plan = plan
		p.mu.Unlock()
		return s, err
	})
}

func (p *Poller) read(ctx context.Context, plan *Plan) (*Sample, *Plan, error) {
	if plan == nil {
		var err error
		plan, err = Probe(ctx, &p.reader, p.nsids, p.cfg)
		if err != nil {
			return nil, nil, err
		}
	}
	// The plan is kept whatever the poll says: a source that stops
	// answering is that source being down (Sample.SourceErr), never a
	// silent switch to a worse source or to none, whose counters would not
	// continue the ones before. A new source takes a new probe: a restart.
	s, err := Poll(ctx, &p.reader, plan, p.now())
	if err == nil && s.SourceErr != nil {
		p.mu.Lock()
		p.sourceErrs[ErrorReason(s.SourceErr)]++
		p.mu.Unlock()
	}
	return s, plan, err
}

// Reprobe drops the probe result: the next read probes the controller
// again and may settle on another NAND source. It is the deliberate way to
// change source without a restart (SIGHUP); the WA sampler sees the new
// source name and restarts the device's windows (walab_nvme_wa_resets_total).
// A read in flight finishes on the old plan.
func (p *Poller) Reprobe() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.plan = nil
	p.samples.expire()
	p.placement.flight.expire()
}

// Timeouts counts calls to Sample and Placement whose deadline passed
// while the device was still being read (a slow or hung controller), and
// the calls then served ErrHung without waiting.
func (p *Poller) Timeouts() uint64 {
	return p.samples.timeoutCount() + p.placement.flight.timeoutCount()
}

// SourceErrors counts failed reads of the plan's NAND source by reason
// (ErrorReason) since start.
func (p *Poller) SourceErrors() map[string]uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]uint64, len(p.sourceErrs))
	for k, v := range p.sourceErrs {
		out[k] = v
	}
	return out
}

// ErrorReason classes a read error for a bounded metric label: the NVMe
// status in hex ("0x4009"), "decode" for a page that does not parse as the
// source expects, "timeout" for a read past its deadline, "errno" for any
// other error before the controller answered.
func ErrorReason(err error) string {
	var st *admin.StatusError
	switch {
	case errors.As(err, &st):
		return fmt.Sprintf("0x%04x", st.Status)
	case isDecode(err):
		return "decode"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "errno"
}
