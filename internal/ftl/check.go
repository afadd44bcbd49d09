package ftl

import "fmt"

// Check verifies every structural invariant of the model: the two maps agree,
// per-block valid counts match the map, closed blocks sit in the right bucket,
// free blocks are empty, no page is lost or duplicated, and the counters add up.
// It is O(pages); tests call it, the simulator does not.
func (m *Model) Check() error {
	if m.c.NANDPages != m.c.HostPages+m.c.GCPages {
		return fmt.Errorf("ftl: NAND pages %d != host %d + GC %d", m.c.NANDPages, m.c.HostPages, m.c.GCPages)
	}
	var mapped uint64
	for l, p := range m.l2p {
		if p == none {
			continue
		}
		mapped++
		if uint64(p) >= uint64(len(m.p2l)) {
			return fmt.Errorf("ftl: logical %d maps to physical %d beyond %d", l, p, len(m.p2l))
		}
		if m.p2l[p] != uint32(l) {
			return fmt.Errorf("ftl: logical %d -> physical %d, but physical %d -> logical %d", l, p, p, m.p2l[p])
		}
	}
	if mapped != m.c.ValidPages {
		return fmt.Errorf("ftl: %d logical pages mapped, counter says %d", mapped, m.c.ValidPages)
	}
	var validSum uint64
	for b := uint32(0); b < m.blocks; b++ {
		var v uint32
		for _, l := range m.p2l[b*m.blockPages : (b+1)*m.blockPages] {
			if l == none {
				continue
			}
			v++
			if m.l2p[l] == none {
				return fmt.Errorf("ftl: block %d holds logical %d, which is unmapped", b, l)
			}
		}
		if v != m.valid[b] {
			return fmt.Errorf("ftl: block %d has %d valid pages, counter says %d", b, v, m.valid[b])
		}
		if m.state[b] == blockFree && v != 0 {
			return fmt.Errorf("ftl: free block %d holds %d valid pages", b, v)
		}
		validSum += uint64(v)
	}
	if validSum != mapped {
		return fmt.Errorf("ftl: blocks hold %d valid pages, %d logical pages mapped", validSum, mapped)
	}
	return m.checkLists()
}

func (m *Model) checkLists() error {
	inList := make([]bool, m.blocks)
	closed := 0
	for v := uint32(0); v <= m.blockPages; v++ {
		prev := int32(-1)
		for b := m.bucket[v]; b >= 0; b = m.next[b] {
			if inList[b] {
				return fmt.Errorf("ftl: block %d is linked twice", b)
			}
			inList[b] = true
			closed++
			if m.prev[b] != prev {
				return fmt.Errorf("ftl: block %d has a broken back link", b)
			}
			if m.state[b] != blockClosed || m.valid[b] != v {
				return fmt.Errorf("ftl: block %d in bucket %d has state %d and %d valid pages", b, v, m.state[b], m.valid[b])
			}
			if v < m.minBucket {
				return fmt.Errorf("ftl: block %d in bucket %d below the minimum hint %d", b, v, m.minBucket)
			}
			prev = b
		}
	}
	free, open := 0, 0
	for b := uint32(0); b < m.blocks; b++ {
		switch m.state[b] {
		case blockFree:
			free++
		case blockOpen:
			open++
		case blockClosed:
			if !inList[b] {
				return fmt.Errorf("ftl: closed block %d is in no bucket", b)
			}
		}
	}
	if free != m.freeLen {
		return fmt.Errorf("ftl: %d blocks are free, pool holds %d", free, m.freeLen)
	}
	for i := 0; i < m.freeLen; i++ {
		j := (m.freeHead + i) % len(m.free)
		if m.state[m.free[j]] != blockFree {
			return fmt.Errorf("ftl: pool entry %d is block %d in state %d", i, m.free[j], m.state[m.free[j]])
		}
	}
	openRefs := 0
	for s, o := range m.open {
		if o.block < 0 {
			continue
		}
		openRefs++
		if m.state[o.block] != blockOpen {
			return fmt.Errorf("ftl: stream %d's open block %d is in state %d", s, o.block, m.state[o.block])
		}
	}
	if openRefs != open {
		return fmt.Errorf("ftl: %d blocks are open, streams hold %d", open, openRefs)
	}
	if uint32(closed+free+open) != m.blocks {
		return fmt.Errorf("ftl: %d closed + %d free + %d open != %d blocks", closed, free, open, m.blocks)
	}
	return nil
}

// Mapped reports whether logical page lpn currently holds data.
func (m *Model) Mapped(lpn uint32) bool { return lpn < uint32(len(m.l2p)) && m.l2p[lpn] != none }
