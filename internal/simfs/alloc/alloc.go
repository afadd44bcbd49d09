// Package alloc lays files out on a simulated drive's logical space the way
// a filesystem does: a file's pages get logical pages (LPNs) on their first
// write, next to the file's previous page when that one is free (so files
// form extents), an overwrite lands on the file's own live page, and
// unlink, truncate and punch-hole free pages, which the drive sees as
// TRIM when they were written (a page fallocate reserved and nothing wrote
// was never on the drive). No logical page is ever live in two files. It does no I/O: the
// FUSE filesystem (internal/simfs) calls it and forwards the extents to
// the drive.
package alloc

import (
	"errors"
	"fmt"
	"slices"
)

// ErrNoSpace is returned when the drive's logical space cannot hold the pages a write needs.
var ErrNoSpace = errors.New("alloc: no free logical pages (ENOSPC)")

// Ext is a run of logical pages.
type Ext struct{ LPN, Pages uint32 }

// File identifies a file: the backing filesystem's inode number, so a
// rename keeps its pages and a hard link shares them.
type File uint64

// Allocator is the file-to-LPN map. It is not safe for concurrent use.
type Allocator struct {
	pageSize uint64
	owner    []uint32 // LPN -> file slot + 1; 0 = free
	written  []uint64 // bit per LPN: its owner wrote it (the drive maps it)
	files    map[File]*file
	slots    map[uint32]File // slot -> file
	nextSlot uint32
	free     uint32
	cursor   uint32 // next-fit search start
}

type file struct {
	slot  uint32
	name  string
	pages map[uint64]uint32 // file page -> LPN
}

// New makes an allocator for a drive of pages logical pages of pageSize bytes.
func New(pages uint32, pageSize uint32) (*Allocator, error) {
	if pages == 0 || pageSize == 0 {
		return nil, fmt.Errorf("alloc: %d pages of %d bytes is no drive", pages, pageSize)
	}
	return &Allocator{pageSize: uint64(pageSize), owner: make([]uint32, pages), written: make([]uint64, (pages+63)/64), files: map[File]*file{},
		slots: map[uint32]File{}, free: pages}, nil
}

// PageSize is the allocation unit in bytes.
func (a *Allocator) PageSize() uint64 { return a.pageSize }

// FreePages is the logical pages no file holds.
func (a *Allocator) FreePages() uint32 { return a.free }

// LivePages is the logical pages files hold.
func (a *Allocator) LivePages() uint32 { return uint32(len(a.owner)) - a.free }

// SetName records a file's current name (its path in the filesystem); a
// rename calls it again. Placement and classes follow the name.
func (a *Allocator) SetName(f File, name string) { a.get(f).name = name }

// Name is the file's recorded name, "" when the allocator does not know it.
func (a *Allocator) Name(f File) string {
	if x := a.files[f]; x != nil {
		return x.name
	}
	return ""
}

func (a *Allocator) get(f File) *file {
	x := a.files[f]
	if x == nil {
		a.nextSlot++
		x = &file{slot: a.nextSlot, pages: map[uint64]uint32{}}
		a.files[f] = x
		a.slots[x.slot] = f
	}
	return x
}

// pageRange is the file pages [first, end) a byte range touches.
func (a *Allocator) pageRange(off, n uint64) (uint64, uint64) {
	if n == 0 {
		return off / a.pageSize, off / a.pageSize
	}
	return off / a.pageSize, (off+n-1)/a.pageSize + 1
}

// Write maps the bytes [off, off+n) of f to logical pages, marks them
// written and returns them in file order, coalesced into extents: the
// pages the drive writes. Pages the file already holds are overwritten in
// place; the others are allocated. If the free pages cannot hold them,
// nothing changes and the error is ErrNoSpace.
func (a *Allocator) Write(f File, off, n uint64) ([]Ext, error) {
	p, err := a.Prepare(f, off, n)
	if err != nil {
		return nil, err
	}
	return a.Commit(p, n), nil
}

// Pending is a write whose pages are mapped but not yet written.
type Pending struct {
	f      File
	off, n uint64
	fresh  []uint64 // the file pages Prepare allocated
}

// Prepare maps the pages of a write of [off, off+n) before it is made, so
// a full drive refuses it untouched (ErrNoSpace). Commit then says how
// much of it was written.
func (a *Allocator) Prepare(f File, off, n uint64) (Pending, error) {
	first, end := a.pageRange(off, n)
	_, fresh, err := a.mapPages(f, first, end)
	return Pending{f: f, off: off, n: n, fresh: fresh}, err
}

// Commit ends a prepared write of which the first done bytes were written
// (0 when it failed): their pages are marked written and returned, as
// Write's; the pages Prepare allocated that no byte reached are given
// back, unless another write has written them meanwhile.
func (a *Allocator) Commit(p Pending, done uint64) []Ext {
	done = min(done, p.n)
	first, end := a.pageRange(p.off, done)
	x := a.files[p.f]
	for _, pg := range p.fresh {
		if lpn, ok := x.pages[pg]; ok && (pg < first || pg >= end) && !a.isWritten(lpn) {
			a.unmap(x, pg, lpn)
		}
	}
	if done == 0 {
		return nil
	}
	// All held, unless a failed write gave back a page both shared.
	exts, _, err := a.mapPages(p.f, first, end)
	if err != nil {
		return nil
	}
	for _, e := range exts {
		for l := e.LPN; l < e.LPN+e.Pages; l++ {
			a.written[l/64] |= 1 << (l % 64)
		}
	}
	return exts
}

func (a *Allocator) isWritten(lpn uint32) bool { return a.written[lpn/64]&(1<<(lpn%64)) != 0 }

// unmap frees file page pg of x, at lpn.
func (a *Allocator) unmap(x *file, pg uint64, lpn uint32) {
	delete(x.pages, pg)
	a.owner[lpn] = 0
	a.written[lpn/64] &^= 1 << (lpn % 64)
	a.free++
}

// MarkAllWritten marks every held page written: the drive has been given
// them all (a precondition's copy of the files).
func (a *Allocator) MarkAllWritten() {
	for lpn, o := range a.owner {
		if o != 0 {
			a.written[lpn/64] |= 1 << (lpn % 64)
		}
	}
}

// Reserve allocates the pages of [off, off+n) that f does not hold yet
// without writing them (fallocate): they count as live, the drive sees no
// write. It returns how many pages it allocated.
func (a *Allocator) Reserve(f File, off, n uint64) (uint32, error) {
	before := a.free
	if _, _, err := a.mapPages(f, off/a.pageSize, (off+n+a.pageSize-1)/a.pageSize); err != nil {
		return 0, err
	}
	return before - a.free, nil
}

// mapPages maps file pages [first, end) of f and returns their LPNs as
// extents and the pages it allocated.
func (a *Allocator) mapPages(f File, first, end uint64) ([]Ext, []uint64, error) {
	x := a.get(f)
	var missing uint64
	for p := first; p < end; p++ {
		if _, ok := x.pages[p]; !ok {
			missing++
		}
	}
	if missing > uint64(a.free) {
		return nil, nil, ErrNoSpace
	}
	var out []Ext
	var fresh []uint64
	for p := first; p < end; p++ {
		lpn, ok := x.pages[p]
		if !ok {
			lpn = a.take(x, p)
			fresh = append(fresh, p)
		}
		out = appendPage(out, lpn)
	}
	return out, fresh, nil
}

// take allocates one logical page for file page p of x: right after the
// LPN of the file's page p-1 when that is free (the extent grows), else the
// next free page from the cursor.
func (a *Allocator) take(x *file, p uint64) uint32 {
	lpn := uint32(len(a.owner))
	if p > 0 {
		if prev, ok := x.pages[p-1]; ok && prev+1 < uint32(len(a.owner)) && a.owner[prev+1] == 0 {
			lpn = prev + 1
		}
	}
	if lpn == uint32(len(a.owner)) {
		lpn = a.nextFree()
	}
	a.owner[lpn] = x.slot
	x.pages[p] = lpn
	a.free--
	a.cursor = lpn + 1
	if a.cursor == uint32(len(a.owner)) {
		a.cursor = 0
	}
	return lpn
}

// nextFree finds a free LPN from the cursor, wrapping once. The caller has
// checked that one exists.
func (a *Allocator) nextFree() uint32 {
	n := uint32(len(a.owner))
	for i := uint32(0); i < n; i++ {
		l := a.cursor + i
		if l >= n {
			l -= n
		}
		if a.owner[l] == 0 {
			return l
		}
	}
	panic("alloc: free count says a page is free but none is")
}

func appendPage(out []Ext, lpn uint32) []Ext {
	if k := len(out) - 1; k >= 0 && out[k].LPN+out[k].Pages == lpn {
		out[k].Pages++
		return out
	}
	return append(out, Ext{LPN: lpn, Pages: 1})
}

// Punch frees the pages wholly inside [off, off+n) (fallocate
// PUNCH_HOLE) and returns the written ones: the drive's TRIM.
func (a *Allocator) Punch(f File, off, n uint64) []Ext {
	first := (off + a.pageSize - 1) / a.pageSize
	end := (off + n) / a.pageSize
	return a.release(f, func(p uint64) bool { return p >= first && p < end })
}

// Truncate frees the pages at or past size and returns the written ones.
func (a *Allocator) Truncate(f File, size uint64) []Ext {
	keep := (size + a.pageSize - 1) / a.pageSize
	return a.release(f, func(p uint64) bool { return p >= keep })
}

// Remove frees every page of f (its last link is gone), forgets it and
// returns the written ones.
func (a *Allocator) Remove(f File) []Ext {
	x := a.files[f]
	if x == nil {
		return nil
	}
	out := a.release(f, func(uint64) bool { return true })
	delete(a.files, f)
	delete(a.slots, x.slot)
	return out
}

func (a *Allocator) release(f File, drop func(p uint64) bool) []Ext {
	x := a.files[f]
	if x == nil {
		return nil
	}
	var lpns []uint32
	for p, lpn := range x.pages {
		if drop(p) {
			if a.isWritten(lpn) {
				lpns = append(lpns, lpn)
			}
			a.unmap(x, p, lpn)
		}
	}
	slices.Sort(lpns)
	var out []Ext
	for _, l := range lpns {
		out = appendPage(out, l)
	}
	return out
}

// Extents is f's layout in file order (tests, the state endpoint).
func (a *Allocator) Extents(f File) []Ext {
	x := a.files[f]
	if x == nil {
		return nil
	}
	ps := make([]uint64, 0, len(x.pages))
	for p := range x.pages {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	var out []Ext
	for i, p := range ps {
		if i > 0 && ps[i-1]+1 != p { // a hole in the file breaks the extent
			out = append(out, Ext{LPN: x.pages[p], Pages: 1})
			continue
		}
		out = appendPage(out, x.pages[p])
	}
	return out
}

// Live is the logical pages some file holds, in LPN order, as runs of
// consecutive pages: what a copy of every file onto a freshly discarded
// drive would write.
func (a *Allocator) Live() []Ext {
	var out []Ext
	for lpn, o := range a.owner {
		if o != 0 {
			out = appendPage(out, uint32(lpn))
		}
	}
	return out
}

// Check verifies the maps agree: every owned LPN is in exactly its
// owner's page map, and the free count matches.
func (a *Allocator) Check() error {
	seen := 0
	for f, x := range a.files {
		for p, lpn := range x.pages {
			if int(lpn) >= len(a.owner) || a.owner[lpn] != x.slot {
				return fmt.Errorf("alloc: file %d page %d maps LPN %d owned by slot %d", f, p, lpn, a.owner[min(int(lpn), len(a.owner)-1)])
			}
			seen++
		}
	}
	owned := 0
	for lpn, o := range a.owner {
		if o != 0 {
			owned++
		} else if a.isWritten(uint32(lpn)) {
			return fmt.Errorf("alloc: free LPN %d is marked written", lpn)
		}
	}
	if owned != seen || uint32(len(a.owner)-owned) != a.free {
		return fmt.Errorf("alloc: %d LPNs owned, %d mapped by files, free count %d of %d", owned, seen, a.free, len(a.owner))
	}
	return nil
}
