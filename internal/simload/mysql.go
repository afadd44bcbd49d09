package simload

import (
	"fmt"
	"math/rand/v2"

	"github.com/walab/walab/internal/simload/rules"
)

// Traffic classes of the MySQL-like mix, in Classes() order.
const (
	classRedo uint8 = iota
	classDoublewrite
	classUndo
	classBinlog
	classData
)

// File names the rule table sees, as MySQL 8.0.30+ names them.
var mysqlFiles = []string{"#ib_redo10", "#ib_16384_0.dblwr", "undo_001", "binlog.000001", "sbtest1.ibd"}

// Command sizes in pages: redo and binlog append small records, InnoDB
// writes 16 KiB pages, the doublewrite buffer writes a batch of them.
const (
	redoIO   = 2
	binlogIO = 2
	dataIO   = 4
	dblwrIO  = 16
	undoIO   = 4
)

// ring is a circular file: writes walk it and wrap, overwriting the oldest data.
type ring struct{ start, size, pos uint32 }

func (r *ring) next(io uint32) uint32 {
	if r.pos+io > r.size {
		r.pos = 0
	}
	lpn := r.start + r.pos
	r.pos += io
	return lpn
}

// mysqlMix lays the logical space out as
//
//	[redo ring][doublewrite ring][undo ring][binlog file slots][tablespace data -> grows]
//
// Redo, doublewrite and undo are circular: their pages live briefly. Binlog
// files are appended, and when more than the retained volume exists the
// oldest file is deleted (a TRIM), as binlog_expire_logs_seconds does. Data
// pages are overwritten at random with a hot/cold skew, and a share of data
// writes extends the tablespace until the fill reaches FillMax.
type mysqlMix struct {
	rng     *rand.Rand
	streams [5]uint8
	cum     [5]float64 // cumulative byte shares, in class order

	redo, dblwr, undo ring

	binStart   uint32
	binFile    uint32 // pages per binlog file
	binSlots   uint32 // slots in the binlog area: retained files + the one being written
	binCur     uint32 // slot being written
	binPos     uint32 // pages written into it
	binLive    uint32 // finished files still on disk
	binRetain  uint32 // finished files kept before expiry
	binPending []Op

	dataStart, dataLen, dataMax uint32
	hotAccess, hotSpace, growth float64
}

func newMySQL(spec Spec, logical uint32, table *rules.Table, rng *rand.Rand) (*mysqlMix, error) {
	m := spec.Mix
	g := &mysqlMix{rng: rng, hotAccess: spec.HotAccess, hotSpace: spec.HotSpace, growth: m.Growth}
	for i, f := range mysqlFiles {
		g.streams[i] = table.Stream(f)
	}
	// The weights are shares of bytes; commands differ in size, so the
	// chance of picking a class is its share divided by its command size.
	weights := [5]float64{m.Redo / redoIO, m.Doublewrite / dblwrIO, m.Undo / undoIO, m.Binlog / binlogIO, m.Data / dataIO}
	var sum, acc float64
	for _, w := range weights {
		sum += w
	}
	for i, w := range weights {
		acc += w / sum
		g.cum[i] = acc
	}
	g.cum[4] = 1

	round := func(frac float64, io uint32) uint32 {
		p := pagesOf(frac, logical)
		p -= p % io
		return max(p, 4*io)
	}
	pos := uint32(0)
	g.redo = ring{start: pos, size: round(m.RedoSpace, redoIO)}
	pos += g.redo.size
	g.dblwr = ring{start: pos, size: round(m.DoublewriteSpace, dblwrIO)}
	pos += g.dblwr.size
	g.undo = ring{start: pos, size: round(m.UndoSpace, undoIO)}
	pos += g.undo.size
	g.binFile = round(m.BinlogFileSpace, binlogIO)
	g.binRetain = max(1, pagesOf(m.BinlogRetainSpace, logical)/g.binFile)
	g.binSlots = g.binRetain + 1
	g.binStart = pos
	pos += g.binSlots * g.binFile
	g.dataStart = pos
	if g.dataStart%dataIO != 0 { // keep 16 KiB data pages aligned
		g.dataStart += dataIO - g.dataStart%dataIO
	}

	start, limit := pagesOf(spec.FillStart, logical), pagesOf(spec.FillMax, logical)
	static := g.dataStart // rings and the whole binlog area count as live at the limit
	if static+8*dataIO > limit {
		return nil, fmt.Errorf("simload: mysql files need %.1f%% of the drive before any data; fill_max is %.1f%%",
			100*float64(static)/float64(logical), 100*spec.FillMax)
	}
	g.dataMax = (limit - static) / dataIO * dataIO
	prefilled := g.redo.size + g.dblwr.size + g.undo.size
	if start > prefilled {
		g.dataLen = (start - prefilled) / dataIO * dataIO
	}
	g.dataLen = min(max(g.dataLen, 8*dataIO), g.dataMax)
	return g, nil
}

func (g *mysqlMix) Name() string { return "mysql" }
func (g *mysqlMix) Classes() []string {
	return []string{"redo", "doublewrite", "undo", "binlog", "data"}
}

// Prefill creates the circular files and the tablespaces; binlogs start empty.
func (g *mysqlMix) Prefill() []Op {
	return []Op{
		{LPN: g.redo.start, Pages: g.redo.size, Stream: g.streams[classRedo], Class: classRedo},
		{LPN: g.dblwr.start, Pages: g.dblwr.size, Stream: g.streams[classDoublewrite], Class: classDoublewrite},
		{LPN: g.undo.start, Pages: g.undo.size, Stream: g.streams[classUndo], Class: classUndo},
		{LPN: g.dataStart, Pages: g.dataLen, Stream: g.streams[classData], Class: classData},
	}
}

func (g *mysqlMix) Next() Op {
	if len(g.binPending) > 0 {
		op := g.binPending[0]
		g.binPending = g.binPending[1:]
		return op
	}
	r := g.rng.Float64()
	c := uint8(0)
	for c < 4 && r >= g.cum[c] {
		c++
	}
	switch c {
	case classRedo:
		return Op{LPN: g.redo.next(redoIO), Pages: redoIO, Stream: g.streams[c], Class: c}
	case classDoublewrite:
		return Op{LPN: g.dblwr.next(dblwrIO), Pages: dblwrIO, Stream: g.streams[c], Class: c}
	case classUndo:
		return Op{LPN: g.undo.next(undoIO), Pages: undoIO, Stream: g.streams[c], Class: c}
	case classBinlog:
		return g.binlog()
	}
	return g.data()
}

func (g *mysqlMix) binlog() Op {
	op := Op{LPN: g.binStart + g.binCur*g.binFile + g.binPos, Pages: binlogIO, Stream: g.streams[classBinlog], Class: classBinlog}
	g.binPos += binlogIO
	if g.binPos >= g.binFile { // rotate: the file is finished
		g.binPos = 0
		g.binCur = (g.binCur + 1) % g.binSlots
		g.binLive++
		if g.binLive > g.binRetain {
			// Expiry deletes the oldest finished file. Slots are used round
			// robin and there is one more slot than retained files, so the
			// oldest is the slot the next file reuses; the filesystem
			// discards its extents before they are written again.
			g.binLive--
			g.binPending = append(g.binPending, Op{Trim: true, LPN: g.binStart + g.binCur*g.binFile, Pages: g.binFile, Stream: g.streams[classBinlog], Class: classBinlog})
		}
	}
	return op
}

func (g *mysqlMix) data() Op {
	if g.dataLen < g.dataMax && g.rng.Float64() < g.growth {
		lpn := g.dataStart + g.dataLen
		g.dataLen += dataIO
		return Op{LPN: lpn, Pages: dataIO, Stream: g.streams[classData], Class: classData}
	}
	units := g.dataLen / dataIO
	hot := max(uint32(float64(units)*g.hotSpace), 1)
	var u uint32
	if hot < units && g.rng.Float64() < g.hotAccess {
		// The hot set is the newest part of the tablespace: recent rows
		// and the right edge of growing indexes.
		u = units - hot + g.rng.Uint32N(hot)
	} else {
		u = g.rng.Uint32N(units)
	}
	return Op{LPN: g.dataStart + u*dataIO, Pages: dataIO, Stream: g.streams[classData], Class: classData}
}

// DataPages is the tablespace size now (for tests and the simulator's state).
func (g *mysqlMix) DataPages() uint32 { return g.dataLen }
