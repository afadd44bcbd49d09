package simfs

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/walab/walab/internal/simfs/alloc"
)

// ClassStats counts one file class's traffic through the filesystem.
type ClassStats struct {
	// WrittenBytes is the bytes of the write calls the filesystem served.
	WrittenBytes uint64
	// HostBytes is what the drive was sent: the pages the writes touched,
	// whole pages (a 512-byte redo write is one 4 KiB host page, as on a
	// 4Kn drive), plus the files adopted at mount.
	HostBytes    uint64
	Writes       uint64 // write calls
	Fsyncs       uint64 // fsync and fdatasync calls
	TrimmedBytes uint64 // pages freed by unlink, truncate, punch-hole or rename-over
}

// Stats is the filesystem's traffic by class (fileclass.Names order),
// and whether it still serves.
type Stats struct {
	Classes   []ClassStats
	LivePages uint32
	Serving   bool
	DriveErr  string // the first error the drive returned, if any
}

// Stats returns the counters.
func (f *FS) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := Stats{Classes: append([]ClassStats(nil), f.st[:]...), LivePages: f.al.LivePages(), Serving: !f.stopped && !f.unmounted}
	if f.driveErr != nil {
		s.DriveErr = f.driveErr.Error()
	}
	return s
}

// WithLive runs fn on the logical pages the files hold (alloc.Live) and
// holds the filesystem still while it runs: no write, TRIM or allocation
// comes between reading the layout and fn's use of it. fn may call the
// drive (the filesystem's own writes take its lock after this one's).
func (f *FS) WithLive(fn func(live []alloc.Ext) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := fn(f.al.Live()); err != nil {
		return err
	}
	f.al.MarkAllWritten() // the drive was given every held page
	return nil
}

// prepare maps a write's byte range to logical pages before the backing
// file is written, so a full drive is ENOSPC and nothing is written.
func (f *FS) prepare(ino alloc.File, off, n uint64) (alloc.Pending, syscall.Errno) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.al.Prepare(ino, off, n)
	if err != nil {
		return p, syscall.ENOSPC
	}
	return p, 0
}

// unreserve gives back the pages a refused fallocate allocated.
func (f *FS) unreserve(p alloc.Pending) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.al.Commit(p, 0)
}

// wrote ends a prepared write of which the backing file took n bytes (0
// when it failed): the pages no byte reached are given back, and a write
// that took bytes is counted and its pages sent to the drive.
func (f *FS) wrote(ino alloc.File, off, n uint64, p alloc.Pending) {
	f.mu.Lock()
	defer f.mu.Unlock()
	exts := f.al.Commit(p, n)
	if n == 0 {
		return
	}
	name := f.al.Name(ino)
	c := f.classes.Of(name, off)
	st := &f.st[c]
	st.Writes++
	st.WrittenBytes += n
	for _, e := range exts {
		st.HostBytes += uint64(e.Pages) * f.al.PageSize()
		f.drive(f.opts.Drive.HostWrite(name, c, e.LPN, e.Pages))
	}
}

// trim sends freed pages to the drive as TRIM and counts them to the
// file's class; with NoDiscard the drive hears nothing.
func (f *FS) trim(name string, exts []alloc.Ext) {
	if f.opts.NoDiscard {
		return
	}
	c := f.classes.Of(name, 0)
	for _, e := range exts {
		f.st[c].TrimmedBytes += uint64(e.Pages) * f.al.PageSize()
		f.drive(f.opts.Drive.HostTrim(e.LPN, e.Pages))
	}
}

// drive keeps the first error the drive returns (it is then marked failed
// or closed, and says so itself); the write to the backing file stands.
func (f *FS) drive(err error) {
	if err != nil && f.driveErr == nil {
		f.driveErr = err
		f.opts.Logger.Error("simulated drive refused the filesystem's write", "err", err)
	}
}

// withAlloc runs fn on the allocator under the lock and trims what it frees.
func (f *FS) withAlloc(ino alloc.File, fn func(a *alloc.Allocator) []alloc.Ext) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trim(f.al.Name(ino), fn(f.al))
}

func (f *FS) fsynced(ino alloc.File) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.st[f.classes.Of(f.al.Name(ino), 0)].Fsyncs++
}

func (f *FS) setName(ino alloc.File, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.al.SetName(ino, name)
}

// adopt lays out the regular files already in the backing directory (a
// restored datadir, a restarted exporter) and writes them to the drive
// once, as the restore would have: their pages count as host bytes.
func (f *FS) adopt() error {
	return filepath.WalkDir(f.opts.Backing, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return fmt.Errorf("simfs: %w", err)
		}
		rel, _ := filepath.Rel(f.opts.Backing, p)
		ino := alloc.File(st.Ino)
		f.setName(ino, rel)
		if st.Nlink > 1 && len(f.al.Extents(ino)) > 0 {
			return nil // another link of a file laid out already
		}
		f.mu.Lock()
		exts, err := f.al.Write(ino, 0, uint64(st.Size))
		f.mu.Unlock()
		if err != nil {
			return fmt.Errorf("simfs: the files in %s do not fit the drive's %d pages of %d bytes: raise sim.capacity", f.opts.Backing, f.opts.LogicalPages, f.opts.PageSize)
		}
		f.mu.Lock()
		c := f.classes.Of(rel, 0)
		for _, e := range exts {
			f.st[c].HostBytes += uint64(e.Pages) * f.al.PageSize()
			f.drive(f.opts.Drive.HostWrite(rel, c, e.LPN, e.Pages))
		}
		f.mu.Unlock()
		return nil
	})
}
