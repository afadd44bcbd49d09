package collector

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/fleet"
)

// Directive Receive operations and the FDP feature / logs (NVMe base spec).
const (
	dtypeIdentify     = 0
	dtypeStreams      = 1
	doperReturnParams = 1
	doperStreamStatus = 2
	fidFDP            = 0x1D
	lidFDPConfigs     = 0x20
	lidRUHUsage       = 0x21

	// streamsStatusLen: 4 KiB holds the open count and the first 2,047 ids;
	// only the count is exported, so a longer list is not worth the transfer.
	streamsStatusLen = 4096
	// fdpConfigsMax bounds the size the log header may ask for.
	fdpConfigsMax = 64 << 10
	// ruhMax bounds the handle count the usage header may claim (the
	// 16-bit field allows 65,535, a 512 KiB read; real drives have a few dozen).
	ruhMax = 4096
)

// streamsDevice caches what never changes for a controller (Identify) and
// which reads the controller answered "unsupported", so those are not sent
// again every scrape.
type streamsDevice struct {
	ctrl *fleet.Controller

	mu          sync.Mutex
	id          *decode.IDController
	ns          *decode.IDNamespace // first namespace; nil when unreadable
	nsTried     bool
	unsupported map[string]bool
}

// deviceState is one scrape's view of a controller.
type deviceState struct {
	known    bool // Identify Controller read
	complete bool // every page the device supports was read this scrape

	directives     bool
	dirID          *decode.DirectivesIdentify
	streamsParams  *decode.StreamsParams
	streamsOpen    *uint16
	lbaSize        uint32
	fdpSupported   bool
	fdpEnabled     bool
	fdpKnown       bool
	fdpConfig      *decode.FDPConfig
	ruhUsage       *decode.RUHUsage
	maxWriteStream int
}

func (d *streamsDevice) nsid() (uint32, bool) {
	if len(d.ctrl.Namespaces) == 0 || d.ctrl.Namespaces[0].NSID == 0 || d.ctrl.Namespaces[0].NSID == admin.NSIDAll {
		return 0, false
	}
	return d.ctrl.Namespaces[0].NSID, true
}

// read gathers one scrape's device state. Errors other than "unsupported"
// are returned, with whatever was read before them.
func (d *streamsDevice) read(ctx context.Context) (deviceState, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var st deviceState
	dev := d.ctrl.Device
	if dev == nil {
		return st, fmt.Errorf("%s: no admin device", d.ctrl.Name)
	}
	if d.id == nil {
		res, err := dev.Submit(ctx, admin.Identify(admin.CNSController, 0))
		if err != nil {
			return st, err
		}
		id, err := decode.ParseIDController(res.Data)
		if err != nil {
			return st, err
		}
		d.id = &id
	}
	st.known = true
	st.directives = d.id.DirectivesSupported()
	st.fdpSupported = d.id.FDPSupported()
	nsid, haveNS := d.nsid()
	if haveNS && !d.nsTried {
		res, err := dev.Submit(ctx, admin.Identify(admin.CNSNamespace, nsid))
		if err != nil && !admin.IsUnsupported(err) {
			return st, err
		}
		d.nsTried = true
		if err == nil {
			if ns, perr := decode.ParseIDNamespace(res.Data); perr == nil {
				d.ns = &ns
			} else {
				return st, perr
			}
		}
	}
	if d.ns != nil {
		st.lbaSize = d.ns.LBADataSize
	}
	var errs []error
	if st.directives && haveNS {
		errs = append(errs, d.readDirectives(ctx, nsid, &st))
	}
	if st.fdpSupported {
		errs = append(errs, d.readFDP(ctx, &st))
	}
	return st, errors.Join(errs...)
}

// submit sends a command unless the controller already said it lacks it.
// ok is false for "unsupported" (now or before).
func (d *streamsDevice) submit(ctx context.Context, key string, cmd admin.Command) (admin.Result, bool, error) {
	if d.unsupported[key] {
		return admin.Result{}, false, nil
	}
	res, err := d.ctrl.Device.Submit(ctx, cmd)
	if admin.IsUnsupported(err) {
		d.unsupported[key] = true
		return admin.Result{}, false, nil
	}
	if err != nil {
		return admin.Result{}, false, err
	}
	return res, true, nil
}

func (d *streamsDevice) readDirectives(ctx context.Context, nsid uint32, st *deviceState) error {
	cmd, err := admin.DirectiveReceive(nsid, dtypeIdentify, doperReturnParams, 0, decode.DirectivesIdentifySize)
	if err != nil {
		return err
	}
	res, ok, err := d.submit(ctx, "dir_identify", cmd)
	if err != nil || !ok {
		return err
	}
	di, err := decode.ParseDirectivesIdentify(res.Data)
	if err != nil {
		return err
	}
	st.dirID = &di
	if !di.SupportedBit(decode.DirectiveStreams) {
		return nil
	}
	cmd, err = admin.DirectiveReceive(nsid, dtypeStreams, doperReturnParams, 0, decode.StreamsParamsSize)
	if err != nil {
		return err
	}
	res, ok, err = d.submit(ctx, "streams_params", cmd)
	if err != nil {
		return err
	}
	if ok {
		p, err := decode.ParseStreamsParams(res.Data)
		if err != nil {
			return err
		}
		st.streamsParams = &p
	}
	if !di.EnabledBit(decode.DirectiveStreams) {
		return nil // Get Status of a disabled directive is a command error
	}
	cmd, err = admin.DirectiveReceive(nsid, dtypeStreams, doperStreamStatus, 0, streamsStatusLen)
	if err != nil {
		return err
	}
	res, ok, err = d.submit(ctx, "streams_status", cmd)
	if err != nil || !ok {
		return err
	}
	s, err := decode.ParseStreamsStatus(res.Data)
	var n uint16
	switch {
	case err == nil:
		n = s.OpenCount
	case errors.Is(err, decode.ErrShortBuffer):
		n = binary.LittleEndian.Uint16(res.Data) // more ids than 4 KiB holds; the count is still right
	default:
		return err
	}
	st.streamsOpen = &n
	return nil
}

// endGroup is the first namespace's endurance group (1 when unknown: FDP
// controllers, QEMU included, number their one group 1).
func (d *streamsDevice) endGroup() uint16 {
	if d.ns != nil && d.ns.ENDGID != 0 {
		return d.ns.ENDGID
	}
	return 1
}

func (d *streamsDevice) readFDP(ctx context.Context, st *deviceState) error {
	eg := d.endGroup()
	res, ok, err := d.submit(ctx, "fdp_feature", admin.GetFeatures(fidFDP, 0, uint32(eg), 0))
	if err != nil || !ok {
		return err
	}
	st.fdpKnown = true
	st.fdpEnabled = res.DW0&1 != 0
	index := int(res.DW0 >> 8 & 0xff)

	hdr, ok, err := d.log(ctx, "fdp_configs", lidFDPConfigs, eg, 16)
	if err != nil || !ok {
		return err
	}
	size := binary.LittleEndian.Uint32(hdr[4:])
	if size < 16 || size > fdpConfigsMax {
		return fmt.Errorf("%s: FDP configurations log says it is %d bytes", d.ctrl.Name, size)
	}
	page, ok, err := d.log(ctx, "fdp_configs", lidFDPConfigs, eg, (size+3)&^3)
	if err != nil || !ok {
		return err
	}
	cfgs, err := decode.ParseFDPConfigs(page)
	if err != nil {
		return err
	}
	if index < len(cfgs.Configs) {
		c := cfgs.Configs[index]
		st.fdpConfig = &c
	}

	hdr, ok, err = d.log(ctx, "ruh_usage", lidRUHUsage, eg, 8)
	if err != nil || !ok {
		return err
	}
	n := uint32(binary.LittleEndian.Uint16(hdr))
	if n > ruhMax {
		return fmt.Errorf("%s: reclaim unit handle usage log claims %d handles (limit %d)", d.ctrl.Name, n, ruhMax)
	}
	page, ok, err = d.log(ctx, "ruh_usage", lidRUHUsage, eg, 8+8*n)
	if err != nil || !ok {
		return err
	}
	u, err := decode.ParseRUHUsage(page)
	if err != nil {
		return err
	}
	st.ruhUsage = &u
	return nil
}

func (d *streamsDevice) log(ctx context.Context, key string, lid uint8, eg uint16, n uint32) ([]byte, bool, error) {
	cmd, err := admin.GetLogPage(admin.LogPage{LID: lid, LSI: eg, Len: n, RAE: true})
	if err != nil {
		return nil, false, err
	}
	res, ok, err := d.submit(ctx, key, cmd)
	return res.Data, ok, err
}
