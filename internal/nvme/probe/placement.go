package probe

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
)

// Bounds on what a controller's placement pages may ask walab to read.
const (
	// fdpConfigsMax bounds the size the 0x20 header may ask for.
	fdpConfigsMax = 64 << 10
	// ruhMax bounds the handle count the 0x21 header may claim (the 16-bit
	// field allows 65,535, a 512 KiB read; real drives have a few dozen).
	ruhMax = 4096
	// fdpEventsFirst is the events the first 0x23 read covers: 4 KiB, the
	// whole log on QEMU (63 events at most) and one command per scrape.
	fdpEventsFirst = 63
	// fdpEventsMax bounds the event count the 0x23 header may claim (a
	// 32-bit field: 2^32 events would be a 256 GiB read).
	fdpEventsMax = 1023
)

// Placement is one read of a controller's data placement state: the
// Directives (Streams) and Flexible Data Placement pages.
type Placement struct {
	Known    bool // Identify Controller read
	Complete bool // every page the device supports was read

	Directives    bool // OACS: Directives supported
	DirID         *decode.DirectivesIdentify
	StreamsParams *decode.StreamsParams
	StreamsOpen   *uint16 // Streams Get Status open count (streams enabled only)
	LBASize       uint32  // first namespace's LBA data size; 0 when unknown
	FDPSupported  bool
	FDPKnown      bool // Get Features FDP answered
	FDPEnabled    bool
	FDPConfig     *decode.FDPConfig // the active configuration
	RUHUsage      *decode.RUHUsage
	// The FDP Events logs (0x23) of the endurance group, read only while
	// FDP is enabled: host events (LSP bit 0 set) and controller events.
	FDPHostEvents *decode.FDPEvents
	FDPCtrlEvents *decode.FDPEvents
}

// PlacementReader reads a controller's placement pages through the probe's
// Reader (so capture records them like every other read). It remembers what
// never changes (Identify) and which reads the controller answered
// "unsupported", so those are not sent again.
type PlacementReader struct {
	r      *Reader
	nsid   uint32 // 0: no namespace to ask
	mu     sync.Mutex
	id     *decode.IDController
	ns     *decode.IDNamespace
	triedN bool
	unsup  map[string]bool
}

// NewPlacementReader reads through r; nsid is the namespace whose
// directives and LBA size are reported (0 or NSIDAll: none).
func NewPlacementReader(r *Reader, nsid uint32) *PlacementReader {
	if nsid == admin.NSIDAll {
		nsid = 0
	}
	return &PlacementReader{r: r, nsid: nsid, unsup: map[string]bool{}}
}

// know takes the Identify data of a probe's plan, so Read does not send
// Identify again.
func (d *PlacementReader) know(plan *Plan) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.id == nil {
		id := plan.Ctrl
		d.id = &id
	}
	if ns, ok := plan.Namespaces[d.nsid]; ok && d.nsid != 0 && !d.triedN {
		d.ns, d.triedN = &ns, true
	}
}

// Read gathers the placement state. Errors other than "unsupported" are
// returned with whatever was read before them.
func (d *PlacementReader) Read(ctx context.Context) (Placement, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var st Placement
	if d.id == nil {
		raw, err := d.r.Identify(ctx, "Identify Controller", admin.CNSController, 0)
		if err != nil {
			return st, err
		}
		id, err := decode.ParseIDController(raw)
		if err != nil {
			return st, &ReadError{Device: d.r.Dev.Name(), What: "Identify Controller", Err: err}
		}
		d.id = &id
	}
	st.Known = true
	st.Directives = d.id.DirectivesSupported()
	st.FDPSupported = d.id.FDPSupported()
	if d.nsid != 0 && !d.triedN {
		raw, err := d.r.Identify(ctx, fmt.Sprintf("Identify Namespace %d", d.nsid), admin.CNSNamespace, d.nsid)
		if err != nil && !admin.IsUnsupported(err) {
			return st, err
		}
		d.triedN = true
		if err == nil {
			ns, perr := decode.ParseIDNamespace(raw)
			if perr != nil {
				return st, &ReadError{Device: d.r.Dev.Name(), What: "Identify Namespace", Err: perr}
			}
			d.ns = &ns
		}
	}
	if d.ns != nil {
		st.LBASize = d.ns.LBADataSize
	}
	var errs []error
	var err error
	if st.Directives && d.nsid != 0 {
		errs = append(errs, d.readDirectives(ctx, &st))
	}
	if st.FDPSupported {
		errs = append(errs, d.readFDP(ctx, &st))
	}
	st.Complete = errors.Join(errs...) == nil && (!st.FDPSupported || st.FDPKnown)
	// The events logs say what happened, not whether placement works: a
	// failed read of one is an error, yet leaves the placement state known.
	if st.FDPEnabled {
		st.FDPHostEvents, err = d.readFDPEvents(ctx, "FDP host events log", true)
		errs = append(errs, err)
		st.FDPCtrlEvents, err = d.readFDPEvents(ctx, "FDP controller events log", false)
		errs = append(errs, err)
	}
	return st, errors.Join(errs...)
}

// submit sends a command unless the controller already said it lacks it.
// ok is false for "unsupported" (now or before).
func (d *PlacementReader) submit(ctx context.Context, what string, cmd admin.Command, err error) (admin.Result, bool, error) {
	if err != nil {
		return admin.Result{}, false, err
	}
	if d.unsup[what] {
		return admin.Result{}, false, nil
	}
	res, err := d.r.submit(ctx, what, cmd)
	if admin.IsUnsupported(err) {
		d.unsup[what] = true
		return admin.Result{}, false, nil
	}
	if err != nil {
		return admin.Result{}, false, err
	}
	return res, true, nil
}

func (d *PlacementReader) readDirectives(ctx context.Context, st *Placement) error {
	cmd, err := admin.DirectiveReceive(d.nsid, decode.DirTypeIdentify, decode.DirOpReturnParams, 0, decode.DirectivesIdentifySize)
	res, ok, err := d.submit(ctx, "Directive Receive Identify", cmd, err)
	if err != nil || !ok {
		return err
	}
	di, err := decode.ParseDirectivesIdentify(res.Data)
	if err != nil {
		return err
	}
	st.DirID = &di
	if !di.SupportedBit(decode.DirectiveStreams) {
		return nil
	}
	cmd, err = admin.DirectiveReceive(d.nsid, decode.DirTypeStreams, decode.DirOpReturnParams, 0, decode.StreamsParamsSize)
	res, ok, err = d.submit(ctx, "Streams Return Parameters", cmd, err)
	if err != nil {
		return err
	}
	if ok {
		p, err := decode.ParseStreamsParams(res.Data)
		if err != nil {
			return err
		}
		st.StreamsParams = &p
	}
	if !di.EnabledBit(decode.DirectiveStreams) {
		return nil // Get Status of a disabled directive is a command error
	}
	// 4 KiB holds the open count and the first 2,047 ids; only the count is
	// used, so a longer list is not worth the transfer.
	cmd, err = admin.DirectiveReceive(d.nsid, decode.DirTypeStreams, decode.DirOpStreamsGetStatus, 0, decode.StreamsStatusTransfer)
	res, ok, err = d.submit(ctx, "Streams Get Status", cmd, err)
	if err != nil || !ok {
		return err
	}
	n, err := decode.StreamsOpenCount(res.Data)
	if err != nil {
		return err
	}
	st.StreamsOpen = &n
	return nil
}

// endGroup is the namespace's endurance group (1 when unknown: FDP
// controllers, QEMU included, number their one group 1).
func (d *PlacementReader) endGroup() uint16 {
	if d.ns != nil && d.ns.ENDGID != 0 {
		return d.ns.ENDGID
	}
	return 1
}

func (d *PlacementReader) readFDP(ctx context.Context, st *Placement) error {
	eg := d.endGroup()
	res, ok, err := d.submit(ctx, "Get Features FDP", admin.GetFeatures(decode.FeatureFDP, 0, uint32(eg), 0), nil)
	if err != nil || !ok {
		return err
	}
	st.FDPKnown = true
	feat := decode.ParseFDPFeature(res.DW0)
	st.FDPEnabled = feat.Enabled

	hdr, ok, err := d.log(ctx, "FDP configurations log", decode.LogFDPConfigs, eg, decode.FDPConfigsHdrSize)
	if err != nil || !ok {
		return err
	}
	size, err := decode.FDPConfigsLen(hdr, fdpConfigsMax)
	if err != nil {
		return err
	}
	page, ok, err := d.log(ctx, "FDP configurations log", decode.LogFDPConfigs, eg, (size+3)&^3)
	if err != nil || !ok {
		return err
	}
	cfgs, err := decode.ParseFDPConfigs(page)
	if err != nil {
		return err
	}
	if i := int(feat.ConfigIndex); i < len(cfgs.Configs) {
		c := cfgs.Configs[i]
		st.FDPConfig = &c
	}

	hdr, ok, err = d.log(ctx, "reclaim unit handle usage log", decode.LogRUHUsage, eg, decode.RUHUsageHdrSize)
	if err != nil || !ok {
		return err
	}
	n, err := decode.RUHUsageLen(hdr, ruhMax)
	if err != nil {
		return err
	}
	page, ok, err = d.log(ctx, "reclaim unit handle usage log", decode.LogRUHUsage, eg, n)
	if err != nil || !ok {
		return err
	}
	u, err := decode.ParseRUHUsage(page)
	if err != nil {
		return err
	}
	st.RUHUsage = &u
	return nil
}

func (d *PlacementReader) log(ctx context.Context, what string, lid uint8, eg uint16, n uint32) ([]byte, bool, error) {
	return d.logLSP(ctx, what, lid, 0, eg, n)
}

func (d *PlacementReader) logLSP(ctx context.Context, what string, lid, lsp uint8, eg uint16, n uint32) ([]byte, bool, error) {
	cmd, err := admin.GetLogPage(admin.LogPage{LID: lid, LSP: lsp, LSI: eg, Len: n, RAE: true})
	res, ok, err := d.submit(ctx, what, cmd, err)
	return res.Data, ok, err
}

// readFDPEvents reads one FDP Events log (0x23) of the endurance group:
// 4 KiB first, the whole log when its header claims more events than that
// holds (up to fdpEventsMax). nil without an error: the controller does not
// have the log.
func (d *PlacementReader) readFDPEvents(ctx context.Context, what string, host bool) (*decode.FDPEvents, error) {
	var lsp uint8
	if host {
		lsp = decode.FDPEventsLSPHost
	}
	eg := d.endGroup()
	page, ok, err := d.logLSP(ctx, what, decode.LogFDPEvents, lsp, eg, decode.FDPEventsLen(fdpEventsFirst))
	if err != nil || !ok {
		return nil, err
	}
	n, err := decode.FDPEventsCount(page, fdpEventsMax)
	if err != nil {
		return nil, &ReadError{Device: d.r.Dev.Name(), What: what, Err: err}
	}
	if n > fdpEventsFirst {
		if page, ok, err = d.logLSP(ctx, what, decode.LogFDPEvents, lsp, eg, decode.FDPEventsLen(n)); err != nil || !ok {
			return nil, err
		}
	}
	ev, err := decode.ParseFDPEvents(page)
	if err != nil {
		return nil, &ReadError{Device: d.r.Dev.Name(), What: what, Err: err}
	}
	return &ev, nil
}
