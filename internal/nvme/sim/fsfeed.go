package sim

import (
	"errors"
	"fmt"
	"path"

	"github.com/walab/walab/internal/simfs/fileclass"
	"github.com/walab/walab/internal/simload"
)

// fsFeed stands in for the generator of a drive under the filesystem
// (Config.FS): the classes are the file classes, there is no prefill, and
// advance never asks it for traffic.
type fsFeed struct{}

func (fsFeed) Name() string          { return "fs" }
func (fsFeed) Classes() []string     { return fileclass.Names }
func (fsFeed) Prefill() []simload.Op { return nil }
func (fsFeed) Next() simload.Op      { panic("sim: a drive under the filesystem has no generator") }

// errNotFS refuses host writes to a drive that runs a generator.
var errNotFS = errors.New("sim: the drive runs a generator, not the filesystem (sim.fs.mountpoint unset)")

// HostWrite writes pages logical pages from lpn, the pages a write to the
// file name touched (internal/simfs): the placement rules pick the stream
// from the name, the bytes count to class.
func (d *Drive) HostWrite(name string, class fileclass.Class, lpn, pages uint32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.feedable(); err != nil {
		return err
	}
	return d.apply(simload.Op{LPN: lpn, Pages: pages, Stream: d.rules.Stream(path.Base(name)), Class: uint8(class)})
}

// HostTrim deallocates pages logical pages from lpn (a file's pages freed
// by unlink, truncate or punch-hole).
func (d *Drive) HostTrim(lpn, pages uint32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.feedable(); err != nil {
		return err
	}
	return d.apply(simload.Op{Trim: true, LPN: lpn, Pages: pages})
}

func (d *Drive) feedable() error {
	switch {
	case !d.cfg.FS.Enabled():
		return errNotFS
	case d.closed:
		return errors.New("sim: drive closed")
	case d.feedErr != nil:
		return d.feedErr
	}
	return nil
}

// FeedFailed marks the drive's feed broken: the filesystem stopped serving,
// so the model no longer sees the database's writes. Every later command
// fails with err, so the exporter's counters for the drive go absent
// rather than show a WA that silently stopped moving.
func (d *Drive) FeedFailed(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.feedErr = fmt.Errorf("sim: %s: the filesystem feeding the drive stopped: %w", d.cfg.Name, err)
	d.lastErr = d.feedErr.Error()
}

// LogicalPages is the model's logical space in pages of PageSize (the
// filesystem's allocator lays files out on it).
func (d *Drive) LogicalPages() uint32 { return d.model.Config().LogicalPages }
