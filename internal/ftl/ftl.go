package ftl

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Policy picks the garbage-collection victim.
type Policy int

const (
	// Greedy takes the closed block with the fewest valid pages (O(1) amortised).
	Greedy Policy = iota
	// CostBenefit takes the block maximising (1-u)·age/(1+u) (Rosenblum and
	// Ousterhout's LFS cleaner) among a window of the emptiest blocks.
	CostBenefit
)

func (p Policy) String() string {
	switch p {
	case Greedy:
		return "greedy"
	case CostBenefit:
		return "cost_benefit"
	}
	return fmt.Sprintf("policy(%d)", int(p))
}

// ParsePolicy maps a configuration word to a Policy.
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "", "greedy":
		return Greedy, nil
	case "cost_benefit", "cost-benefit":
		return CostBenefit, nil
	}
	return 0, fmt.Errorf("ftl: unknown gc policy %q (want greedy or cost_benefit)", s)
}

// MaxStreams bounds the host write streams (placement ids) one model keeps open.
const MaxStreams = 64

// Config sizes a model.
type Config struct {
	LogicalPages uint32  // pages the host can address (the exported capacity)
	BlockPages   uint32  // pages per erase block
	PageSize     uint32  // bytes per page (the mapping unit)
	SpareFactor  float64 // (physical - logical) / physical, in (0, 1)
	Streams      int     // host open blocks, one per placement id; 1 = no placement
	Policy       Policy
	// CostBenefitWindow is how many candidate blocks CostBenefit scores per
	// collection (0 = 256). Scanning every block would make GC O(n).
	CostBenefitWindow int
}

// reserveBlocks are kept free so that collecting a victim can always open a
// new relocation block.
const reserveBlocks = 1

// Validate checks the configuration and says what is wrong.
func (c Config) Validate() error {
	switch {
	case c.LogicalPages == 0:
		return errors.New("ftl: logical pages must be positive")
	case c.BlockPages < 2 || c.BlockPages > 1<<16:
		return fmt.Errorf("ftl: block pages %d out of range [2, 65536]", c.BlockPages)
	case c.PageSize == 0:
		return errors.New("ftl: page size must be positive")
	case math.IsNaN(c.SpareFactor) || c.SpareFactor <= 0 || c.SpareFactor >= 0.95:
		return fmt.Errorf("ftl: spare factor %v out of range (0, 0.95)", c.SpareFactor)
	case c.Streams < 1 || c.Streams > MaxStreams:
		return fmt.Errorf("ftl: streams %d out of range [1, %d]", c.Streams, MaxStreams)
	case c.Policy != Greedy && c.Policy != CostBenefit:
		return fmt.Errorf("ftl: unknown policy %d", c.Policy)
	}
	phys := c.physicalBlocks()
	if phys*uint64(c.BlockPages) >= math.MaxUint32 {
		return fmt.Errorf("ftl: %d physical pages exceed the uint32 page index", phys*uint64(c.BlockPages))
	}
	logicalBlocks := (uint64(c.LogicalPages) + uint64(c.BlockPages) - 1) / uint64(c.BlockPages)
	// Every host stream and the GC stream hold one open block, and the
	// reserve must stay free, on top of the blocks the logical data needs.
	need := logicalBlocks + uint64(c.Streams) + 1 + reserveBlocks + 1
	if phys < need {
		return fmt.Errorf("ftl: spare factor %v leaves %d physical blocks for %d logical blocks; %d streams need at least %d: raise the spare factor or the capacity",
			c.SpareFactor, phys, logicalBlocks, c.Streams, need)
	}
	return nil
}

func (c Config) physicalBlocks() uint64 {
	phys := float64(c.LogicalPages) / (1 - c.SpareFactor)
	return uint64(math.Ceil(phys / float64(c.BlockPages)))
}

const none = math.MaxUint32

// Model is the FTL state. It is not safe for concurrent use.
type Model struct {
	cfg        Config
	blockPages uint32
	blockShift int8 // log2(blockPages) when it is a power of two, else -1
	blocks     uint32

	l2p []uint32 // logical page -> physical page, none if unmapped
	p2l []uint32 // physical page -> logical page, none if invalid or unwritten

	valid   []uint32 // valid pages per block
	erases  []uint32 // erase count per block
	closeAt []uint64 // NAND page sequence when the block was closed (for cost-benefit age)
	state   []uint8  // blockFree, blockOpen, blockClosed

	// Closed blocks sit in one doubly linked list per valid count, so the
	// greedy victim is the head of the lowest non-empty bucket.
	next, prev []int32
	bucket     []int32 // head per valid count 0..blockPages, -1 if empty
	minBucket  uint32  // no closed block has fewer valid pages than this

	free     []uint32 // FIFO ring of erased blocks: oldest erased is reused first
	freeHead int
	freeLen  int

	open   []openBlock // host streams, then the GC stream last
	gcOpen int

	c Counters
}

type openBlock struct {
	block int32 // -1 when the stream has no open block yet
	wp    uint32
}

const (
	blockFree uint8 = iota
	blockOpen
	blockClosed
)

// Counters are what a drive would count. NANDPages = HostPages + GCPages always.
type Counters struct {
	HostPages    uint64 // pages written by the host
	GCPages      uint64 // pages relocated by garbage collection
	NANDPages    uint64 // pages programmed on NAND
	TrimmedPages uint64 // mapped pages the host deallocated
	Erases       uint64 // block erases
	ValidPages   uint64 // logical pages currently mapped
	GCRuns       uint64 // victims collected
}

// New builds an empty (fully erased) model.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.CostBenefitWindow <= 0 {
		cfg.CostBenefitWindow = 256
	}
	nb := uint32(cfg.physicalBlocks())
	bp := cfg.BlockPages
	m := &Model{
		cfg:        cfg,
		blockPages: bp,
		blocks:     nb,
		l2p:        make([]uint32, cfg.LogicalPages),
		p2l:        make([]uint32, uint64(nb)*uint64(bp)),
		valid:      make([]uint32, nb),
		erases:     make([]uint32, nb),
		closeAt:    make([]uint64, nb),
		state:      make([]uint8, nb),
		next:       make([]int32, nb),
		prev:       make([]int32, nb),
		bucket:     make([]int32, bp+1),
		free:       make([]uint32, nb),
		open:       make([]openBlock, cfg.Streams+1),
		gcOpen:     cfg.Streams,
	}
	for i := range m.l2p {
		m.l2p[i] = none
	}
	for i := range m.p2l {
		m.p2l[i] = none
	}
	for i := range m.bucket {
		m.bucket[i] = -1
	}
	for i := range m.free {
		m.free[i] = uint32(i)
	}
	m.freeLen = int(nb)
	for i := range m.open {
		m.open[i].block = -1
	}
	m.minBucket = bp + 1
	m.blockShift = -1
	if bp&(bp-1) == 0 {
		m.blockShift = int8(bits.TrailingZeros32(bp))
	}
	return m, nil
}

// Config returns the configuration the model was built with.
func (m *Model) Config() Config { return m.cfg }

// PhysicalBlocks is the number of erase blocks, spare included.
func (m *Model) PhysicalBlocks() uint32 { return m.blocks }

// PhysicalPages is the number of NAND pages, spare included.
func (m *Model) PhysicalPages() uint64 { return uint64(m.blocks) * uint64(m.blockPages) }

// Counters returns a copy of the counters.
func (m *Model) Counters() Counters { return m.c }

// FreeBlocks is the number of erased blocks waiting to be opened.
func (m *Model) FreeBlocks() int { return m.freeLen }

// WA is NAND pages over host pages (0 before the first host write).
func (c Counters) WA() float64 {
	if c.HostPages == 0 {
		return 0
	}
	return float64(c.NANDPages) / float64(c.HostPages)
}

// ErrNoSpace means no closed block has an invalid page to reclaim. Validate
// makes it unreachable for a consistent model; it guards against bugs.
var ErrNoSpace = errors.New("ftl: no reclaimable block")

// Write maps logical page lpn to a fresh page of the stream's open block.
// A stream outside [0, Streams) writes to stream 0, as a drive treats an
// unknown placement id as no placement.
func (m *Model) Write(lpn uint32, stream int) error {
	if lpn >= uint32(len(m.l2p)) {
		return fmt.Errorf("ftl: write to logical page %d beyond %d", lpn, len(m.l2p))
	}
	if uint(stream) >= uint(m.cfg.Streams) {
		stream = 0
	}
	if err := m.program(lpn, stream); err != nil {
		return err
	}
	m.c.HostPages++
	return nil
}

// Trim deallocates n logical pages from lpn. Unmapped pages are ignored.
func (m *Model) Trim(lpn, n uint32) error {
	end := uint64(lpn) + uint64(n)
	if end > uint64(len(m.l2p)) {
		return fmt.Errorf("ftl: trim of [%d, %d) beyond %d logical pages", lpn, end, len(m.l2p))
	}
	for l := lpn; uint64(l) < end; l++ {
		if p := m.l2p[l]; p != none {
			m.invalidate(p)
			m.l2p[l] = none
			m.c.TrimmedPages++
			m.c.ValidPages--
		}
	}
	return nil
}

// Seal closes the stream's open block even if it is not full, so that its
// pages become reclaimable; the unwritten rest of the block is wasted until
// the block is erased, as on a drive that pads a retired placement handle.
func (m *Model) Seal(stream int) {
	if uint(stream) >= uint(m.cfg.Streams) {
		return
	}
	o := &m.open[stream]
	if o.block >= 0 && o.wp > 0 {
		m.closeBlock(uint32(o.block))
		o.block = -1
		o.wp = 0
	}
}

// program writes lpn into stream's open block (host stream or the GC stream).
func (m *Model) program(lpn uint32, stream int) error {
	o := &m.open[stream]
	if o.block < 0 {
		if err := m.openBlock(stream); err != nil {
			return err
		}
		o = &m.open[stream]
	}
	if old := m.l2p[lpn]; old != none {
		m.invalidate(old)
	} else {
		m.c.ValidPages++
	}
	m.place(o, lpn)
	return nil
}

// place writes lpn at o's write pointer, the one page write of the host
// and the GC streams: the page maps lpn, counts as a NAND page, and o's
// block closes when it is full.
func (m *Model) place(o *openBlock, lpn uint32) {
	b := uint32(o.block)
	p := b*m.blockPages + o.wp
	m.p2l[p] = lpn
	m.l2p[lpn] = p
	m.valid[b]++
	m.c.NANDPages++
	o.wp++
	if o.wp == m.blockPages {
		m.closeBlock(b)
		o.block = -1
		o.wp = 0
	}
}

func (m *Model) invalidate(p uint32) {
	m.p2l[p] = none
	var b uint32
	if m.blockShift >= 0 { // the usual power-of-two block: a shift, not a division
		b = p >> uint(m.blockShift)
	} else {
		b = p / m.blockPages
	}
	if m.state[b] == blockClosed {
		v := m.valid[b]
		m.unlink(b, v)
		m.valid[b] = v - 1
		m.link(b, v-1)
		return
	}
	m.valid[b]--
}

func (m *Model) closeBlock(b uint32) {
	m.state[b] = blockClosed
	m.closeAt[b] = m.c.NANDPages
	m.link(b, m.valid[b])
}

func (m *Model) link(b, v uint32) {
	h := m.bucket[v]
	m.next[b] = h
	m.prev[b] = -1
	if h >= 0 {
		m.prev[h] = int32(b)
	}
	m.bucket[v] = int32(b)
	if v < m.minBucket {
		m.minBucket = v
	}
}

func (m *Model) unlink(b, v uint32) {
	n, p := m.next[b], m.prev[b]
	if p >= 0 {
		m.next[p] = n
	} else {
		m.bucket[v] = n
	}
	if n >= 0 {
		m.prev[n] = p
	}
}

// openBlock gives stream a fresh erased block, collecting garbage first when
// the free pool is down to the reserve.
func (m *Model) openBlock(stream int) error {
	for m.freeLen <= reserveBlocks {
		if err := m.collect(); err != nil {
			return err
		}
	}
	b := m.popFree()
	m.state[b] = blockOpen
	m.open[stream] = openBlock{block: int32(b)}
	return nil
}

func (m *Model) popFree() uint32 {
	b := m.free[m.freeHead]
	m.freeHead++
	if m.freeHead == len(m.free) {
		m.freeHead = 0
	}
	m.freeLen--
	return b
}

func (m *Model) pushFree(b uint32) {
	i := m.freeHead + m.freeLen
	if i >= len(m.free) {
		i -= len(m.free)
	}
	m.free[i] = b
	m.freeLen++
}
