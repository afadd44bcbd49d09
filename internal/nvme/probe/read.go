package probe

import (
	"context"
	"errors"
	"fmt"

	"github.com/walab/walab/internal/nvme/admin"
)

// DefaultChunk is the Get Log Page transfer size used when the controller
// supports offsets: 4 KiB is below every controller's MDTS and is what
// libnvme uses.
const DefaultChunk = 4096

// ReadError says which command on which device failed, and why (the wrapped
// error is an *admin.StatusError for a controller status, else errno/I/O).
type ReadError struct {
	Device string
	What   string // "SMART log", "Identify Controller", ...
	Err    error
}

func (e *ReadError) Error() string { return fmt.Sprintf("%s: read %s: %v", e.Device, e.What, e.Err) }
func (e *ReadError) Unwrap() error { return e.Err }

// Unsupported reports whether a read failed only because the controller
// does not implement it: for probing that means "absent", not "broken".
func Unsupported(err error) bool { return admin.IsUnsupported(err) }

// Reader sends the exporter's reads to one device. Record, when set, sees
// every successful command and its result (the capture subcommand).
type Reader struct {
	Dev    *admin.Device
	Chunk  uint32 // log transfer size when offsets are supported; 0 means DefaultChunk
	Record func(admin.Command, admin.Result)
}

func (r *Reader) submit(ctx context.Context, what string, cmd admin.Command) (admin.Result, error) {
	res, err := r.Dev.Submit(ctx, cmd)
	if err != nil {
		return res, &ReadError{Device: r.Dev.Name(), What: what, Err: err}
	}
	if r.Record != nil {
		r.Record(cmd, res)
	}
	return res, nil
}

// Identify reads a 4096-byte Identify structure.
func (r *Reader) Identify(ctx context.Context, what string, cns uint8, nsid uint32) ([]byte, error) {
	res, err := r.submit(ctx, what, admin.Identify(cns, nsid))
	return res.Data, err
}

// Log reads a whole log page. With extended (Identify LPA bit 2) a page
// longer than the chunk size is read in chunks at increasing offsets
// (LPOL/LPOU); without it, offsets are not allowed and the page is read in
// one command. RAE is always set: a poller must not clear pending
// asynchronous events that the driver or an operator is waiting for.
func (r *Reader) Log(ctx context.Context, what string, p admin.LogPage, extended bool) ([]byte, error) {
	if p.Len == 0 {
		return nil, &ReadError{Device: r.Dev.Name(), What: what, Err: errors.New("zero-length log read")}
	}
	p.RAE = true
	chunk := r.Chunk
	if chunk == 0 {
		chunk = DefaultChunk
	}
	chunk &^= 3
	if chunk == 0 {
		chunk = 4
	}
	if !extended || p.Len <= chunk {
		cmd, err := admin.GetLogPage(p)
		if err != nil {
			return nil, &ReadError{Device: r.Dev.Name(), What: what, Err: err}
		}
		res, err := r.submit(ctx, what, cmd)
		return res.Data, err
	}
	out := make([]byte, 0, p.Len)
	base := p.Offset
	for done := uint32(0); done < p.Len; {
		n := min(chunk, p.Len-done)
		q := p
		q.Offset = base + uint64(done)
		q.Len = n
		cmd, err := admin.GetLogPage(q)
		if err != nil {
			return nil, &ReadError{Device: r.Dev.Name(), What: what, Err: err}
		}
		res, err := r.submit(ctx, what, cmd)
		if err != nil {
			return nil, err
		}
		out = append(out, res.Data...)
		done += n
	}
	return out, nil
}
