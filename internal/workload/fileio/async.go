package fileio

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/uring"
	"github.com/walab/walab/internal/workload"
)

// async is a thread's --file-io-mode=async state, as sysbench's (libaio
// there, io_uring here): up to --file-async-backlog requests in flight on
// the thread's own ring, each in its own slot of the thread's buffer. An
// event submits one request, after reaping what has completed (and
// waiting for one when every slot is taken); the event's counts are the
// completions it reaped. An fsync waits for every request in flight, then
// syncs as in sync mode. Requests still in flight when the run ends are
// waited for and not counted.
type async struct {
	ring     *uring.Ring
	slotSize int64
	free     []int
	reqs     []request
}

type request struct {
	write     bool
	file      int
	off, size int64
}

func newAsync(slots int, slotSize int64) (*async, error) {
	r, err := uring.New(slots)
	if err != nil {
		return nil, fmt.Errorf("fileio: --file-io-mode=async: %w", err)
	}
	a := &async{ring: r, slotSize: slotSize, reqs: make([]request, slots)}
	for i := slots - 1; i >= 0; i-- {
		a.free = append(a.free, i)
	}
	return a, nil
}

func (t *terminal) runAsync(typ string) (workload.Result, error) {
	a, w := t.async, t.w
	var res workload.Result
	if typ == TxFsync {
		if err := t.reap(a.ring.InFlight(), &res); err != nil {
			return res, err
		}
		f := t.pending[0]
		t.pending = t.pending[1:]
		if err := w.syncFile(f); err != nil {
			return res, fmt.Errorf("%s %s: %w", w.o.FsyncMode, w.paths[f], err)
		}
		res.Other++
		return res, nil
	}
	wait := 0
	if len(a.free) == 0 {
		wait = 1 // every slot in flight: wait for one
	}
	if err := t.reap(wait, &res); err != nil {
		return res, err
	}
	file, off, n := t.place()
	slot := a.free[len(a.free)-1]
	a.free = a.free[:len(a.free)-1]
	data := t.buf[int64(slot)*a.slotSize : int64(slot)*a.slotSize+n]
	a.reqs[slot] = request{write: typ == TxWrite, file: file, off: off, size: n}
	submit := a.ring.Read
	if typ == TxWrite {
		submit = a.ring.Write
	}
	if err := submit(w.fds[file], data, off, uint64(slot)); err != nil {
		a.free = append(a.free, slot)
		return res, err
	}
	if typ == TxWrite {
		t.countWrite(file)
	}
	return res, nil
}

// reap collects the completions there are, waiting for at least n, into
// res; a failed or short request is an error naming it.
func (t *terminal) reap(n int, res *workload.Result) error {
	a, w := t.async, t.w
	done, err := a.ring.Reap(max(n, 0))
	var errs []error
	for _, c := range done {
		slot := int(c.Tag)
		rq := a.reqs[slot]
		a.free = append(a.free, slot)
		op := map[bool]string{false: "read", true: "write"}[rq.write]
		switch {
		case c.Res < 0:
			errs = append(errs, fmt.Errorf("%s %s at %d: %w", op, w.paths[rq.file], rq.off, unix.Errno(-c.Res)))
		case int64(c.Res) != rq.size:
			errs = append(errs, fmt.Errorf("%s %s at %d: %d of %d bytes", op, w.paths[rq.file], rq.off, c.Res, rq.size))
		case rq.write:
			res.Writes++
			res.WrittenBytes += rq.size
		default:
			res.Reads++
			res.ReadBytes += rq.size
		}
	}
	return errors.Join(append(errs, err)...)
}
