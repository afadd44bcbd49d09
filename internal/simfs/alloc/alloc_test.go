package alloc

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func pagesOf(exts []Ext) (n uint32) {
	for _, e := range exts {
		n += e.Pages
	}
	return n
}

func TestSequentialWritesFormOneExtent(t *testing.T) {
	a, err := New(1024, 4096)
	require.NoError(t, err)
	for off := uint64(0); off < 64*4096; off += 16384 {
		_, err := a.Write(1, off, 16384)
		require.NoError(t, err)
	}
	require.Equal(t, []Ext{{0, 64}}, a.Extents(1))
	// An overwrite lands on the file's own pages.
	got, err := a.Write(1, 4096*10+100, 8192)
	require.NoError(t, err)
	require.Equal(t, []Ext{{10, 3}}, got, "bytes 41060..49252 touch pages 10-12")
	require.Equal(t, uint32(64), a.LivePages())
}

func TestInterleavedFilesKeepTheirOwnPages(t *testing.T) {
	a, _ := New(64, 4096)
	_, _ = a.Write(1, 0, 4096)
	_, _ = a.Write(2, 0, 4096)
	e1, _ := a.Write(1, 4096, 4096) // page 1 of file 1: LPN 1 is file 2's
	require.Equal(t, []Ext{{2, 1}}, e1)
	require.NoError(t, a.Check())
}

func TestNoSpaceChangesNothing(t *testing.T) {
	a, _ := New(8, 4096)
	_, err := a.Write(1, 0, 6*4096)
	require.NoError(t, err)
	_, err = a.Write(2, 0, 3*4096)
	require.ErrorIs(t, err, ErrNoSpace)
	require.Equal(t, uint32(2), a.FreePages())
	// An overwrite of live pages needs no space.
	_, err = a.Write(1, 0, 6*4096)
	require.NoError(t, err)
	require.NoError(t, a.Check())
}

func TestPunchAndTruncateFreeWholePagesOnly(t *testing.T) {
	a, _ := New(64, 4096)
	_, _ = a.Write(1, 0, 10*4096)
	require.Equal(t, []Ext{{2, 2}}, a.Punch(1, 4096+1, 3*4096), "bytes 4097..16385 wholly cover pages 2 and 3")
	require.Equal(t, []Ext{{7, 3}}, a.Truncate(1, 6*4096+1), "size 24577 keeps pages 0-6")
	require.Equal(t, uint32(5), a.LivePages())
	require.Len(t, a.Remove(1), 2, "pages 0-1 and 4-6 are two extents")
	require.Equal(t, uint32(0), a.LivePages())
	require.NoError(t, a.Check())
}

func TestReserveAllocatesWithoutWriting(t *testing.T) {
	a, _ := New(64, 4096)
	n, err := a.Reserve(1, 0, 8*4096)
	require.NoError(t, err)
	require.Equal(t, uint32(8), n)
	got, _ := a.Write(1, 3*4096, 4096)
	require.Equal(t, []Ext{{3, 1}}, got, "a write into a reserved range uses its page")
	n, _ = a.Reserve(1, 0, 8*4096)
	require.Zero(t, n)
}

// TestAllocatorProperties runs random writes, reserves, punches,
// truncates and removes over a few files against a shadow of what each
// file holds: no LPN is live in two files (Check), every freed page is in
// the returned TRIM extents exactly once, and the pages a write returns
// are the pages its byte range touches.
func TestAllocatorProperties(t *testing.T) {
	const pages, ps = 512, 4096
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		a, _ := New(pages, ps)
		live := map[uint32]File{}    // LPN -> file
		written := map[uint32]File{} // LPN -> the file that wrote it
		for step := 0; step < 3000; step++ {
			f := File(rng.IntN(5) + 1)
			off := uint64(rng.IntN(200 * ps))
			n := uint64(rng.IntN(8*ps) + 1)
			switch op := rng.IntN(10); {
			case op < 6:
				exts, err := a.Write(f, off, n)
				if err != nil {
					require.ErrorIs(t, err, ErrNoSpace)
					continue
				}
				first, end := off/ps, (off+n-1)/ps+1
				require.Equal(t, uint32(end-first), pagesOf(exts), "seed %d step %d", seed, step)
				for _, e := range exts {
					for l := e.LPN; l < e.LPN+e.Pages; l++ {
						if o, ok := live[l]; ok {
							require.Equal(t, f, o, "LPN %d written by file %d while file %d holds it", l, f, o)
						}
						live[l], written[l] = f, f
					}
				}
			case op < 7:
				before := a.LivePages()
				got, err := a.Reserve(f, off, n)
				if err == nil {
					require.Equal(t, before+got, a.LivePages())
				}
				for _, e := range a.Extents(f) {
					for l := e.LPN; l < e.LPN+e.Pages; l++ {
						live[l] = f
					}
				}
			default:
				var freed []Ext
				switch op {
				case 7:
					freed = a.Punch(f, off, n)
				case 8:
					freed = a.Truncate(f, off)
				default:
					freed = a.Remove(f)
				}
				checkFreed(t, a, f, freed, live, written)
			}
			require.Equal(t, uint32(len(live)), a.LivePages())
		}
		require.NoError(t, a.Check())
	}
}

// checkFreed: the extents a free returned (the TRIM) are exactly the
// pages of f that it wrote and no longer holds; pages it reserved and
// never wrote are freed too, silently.
func checkFreed(t *testing.T, a *Allocator, f File, freed []Ext, live, written map[uint32]File) {
	t.Helper()
	trimmed := map[uint32]bool{}
	for _, e := range freed {
		for l := e.LPN; l < e.LPN+e.Pages; l++ {
			require.Equal(t, f, written[l], "trimmed LPN %d was not written by file %d", l, f)
			require.False(t, trimmed[l], "LPN %d trimmed twice", l)
			trimmed[l] = true
		}
	}
	held := map[uint32]bool{}
	for _, e := range a.Extents(f) {
		for l := e.LPN; l < e.LPN+e.Pages; l++ {
			held[l] = true
		}
	}
	for l, o := range live {
		if o == f && !held[l] {
			delete(live, l)
			require.Equal(t, written[l] == f, trimmed[l], "LPN %d freed: trimmed iff written", l)
			delete(written, l)
		}
	}
}

// TestLiveIsEveryOwnedPageInOrder: Live lists the pages files hold, in LPN
// order, consecutive ones as one run, and nothing freed.
func TestLiveIsEveryOwnedPageInOrder(t *testing.T) {
	a, err := New(64, 4096)
	require.NoError(t, err)
	require.Empty(t, a.Live())
	_, err = a.Write(1, 0, 4*4096) // LPN 0-3
	require.NoError(t, err)
	_, err = a.Write(2, 0, 3*4096) // 4-6
	require.NoError(t, err)
	_, err = a.Write(3, 0, 2*4096) // 7-8
	require.NoError(t, err)
	a.Remove(2)
	a.Punch(1, 4096, 4096) // LPN 1
	require.Equal(t, []Ext{{0, 1}, {2, 2}, {7, 2}}, a.Live())
	require.NoError(t, a.Check())
}

// TestCommitGivesBackWhatNoByteReached: a failed write (Commit with 0)
// frees the pages its Prepare allocated and keeps the ones the file held
// or reserved; a short write keeps the pages its bytes reached; a page
// another write wrote meanwhile stays.
func TestCommitGivesBackWhatNoByteReached(t *testing.T) {
	a, _ := New(64, 4096)
	_, err := a.Reserve(1, 0, 2*4096) // pages 0-1 reserved
	require.NoError(t, err)
	p, err := a.Prepare(1, 0, 6*4096)
	require.NoError(t, err)
	require.Equal(t, uint32(6), a.LivePages())
	require.Nil(t, a.Commit(p, 0))
	require.Equal(t, uint32(2), a.LivePages(), "the reservation stays, the four new pages go")
	require.Empty(t, a.Remove(1), "nothing was written: no TRIM")

	p, err = a.Prepare(2, 0, 6*4096)
	require.NoError(t, err)
	require.Equal(t, uint32(2), pagesOf(a.Commit(p, 4097)), "4097 bytes reach pages 0 and 1")
	require.Equal(t, uint32(2), a.LivePages())

	p, err = a.Prepare(3, 0, 2*4096)
	require.NoError(t, err)
	q, err := a.Prepare(3, 4096, 4096) // page 1, fresh to p, held for q
	require.NoError(t, err)
	require.Len(t, a.Commit(q, 4096), 1)
	require.Nil(t, a.Commit(p, 0))
	require.Equal(t, uint32(1), pagesOf(a.Extents(3)), "q wrote page 1: p's failure keeps it")
	require.Len(t, a.Remove(3), 1, "and its TRIM")
	require.NoError(t, a.Check())
}
