package simload

import (
	"math/rand/v2"

	"github.com/walab/walab/internal/simload/rules"
)

type synthKind int

const (
	synthUniform synthKind = iota
	synthHotCold
	synthSequential
)

// synthetic writes over the first FillStart of the logical space: uniformly
// at random, with a hot/cold skew (HotAccess of writes to the first HotSpace
// of it), or sequentially in a loop.
type synthetic struct {
	kind    synthKind
	name    string
	classes []string
	streams []uint8
	span    uint32 // live logical pages
	hot     uint32 // pages in the hot set
	access  float64
	io      uint32
	pos     uint32
	rng     *rand.Rand
}

func newSynthetic(spec Spec, logical uint32, table *rules.Table, rng *rand.Rand, kind synthKind) *synthetic {
	g := &synthetic{kind: kind, rng: rng, io: spec.IOPages, access: spec.HotAccess}
	g.span = max(pagesOf(spec.FillStart, logical), g.io)
	g.span -= g.span % g.io // whole commands only
	switch kind {
	case synthUniform:
		g.name, g.classes = "uniform", []string{"uniform.dat"}
	case synthSequential:
		g.name, g.classes = "sequential", []string{"sequential.dat"}
	case synthHotCold:
		g.name, g.classes = "hotcold", []string{"hot.dat", "cold.dat"}
		g.hot = max(pagesOf(spec.HotSpace, g.span), g.io)
		g.hot -= g.hot % g.io
		g.hot = min(g.hot, g.span-g.io)
	}
	for _, c := range g.classes {
		g.streams = append(g.streams, table.Stream(c))
	}
	return g
}

func (g *synthetic) Name() string      { return g.name }
func (g *synthetic) Classes() []string { return g.classes }

func (g *synthetic) Prefill() []Op {
	if g.kind == synthHotCold {
		return []Op{
			{LPN: 0, Pages: g.hot, Stream: g.streams[0], Class: 0},
			{LPN: g.hot, Pages: g.span - g.hot, Stream: g.streams[1], Class: 1},
		}
	}
	return []Op{{LPN: 0, Pages: g.span, Stream: g.streams[0]}}
}

func (g *synthetic) Next() Op {
	switch g.kind {
	case synthSequential:
		op := Op{LPN: g.pos, Pages: g.io, Stream: g.streams[0]}
		g.pos += g.io
		if g.pos >= g.span {
			g.pos = 0
		}
		return op
	case synthHotCold:
		if g.rng.Float64() < g.access {
			return Op{LPN: g.rng.Uint32N(g.hot/g.io) * g.io, Pages: g.io, Stream: g.streams[0], Class: 0}
		}
		cold := g.span - g.hot
		return Op{LPN: g.hot + g.rng.Uint32N(cold/g.io)*g.io, Pages: g.io, Stream: g.streams[1], Class: 1}
	}
	return Op{LPN: g.rng.Uint32N(g.span/g.io) * g.io, Pages: g.io, Stream: g.streams[0]}
}
