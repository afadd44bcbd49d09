package ftl

// collect reclaims one victim block: its valid pages move to the GC stream's
// open block, then it is erased and joins the free pool.
func (m *Model) collect() error {
	v, ok := m.victim()
	if !ok {
		return ErrNoSpace
	}
	m.unlink(v, m.valid[v])
	// Mark it open so relocations that invalidate its pages do not touch the
	// bucket lists it just left.
	m.state[v] = blockOpen
	base := v * m.blockPages
	gc := &m.open[m.gcOpen]
	for i := uint32(0); i < m.blockPages && m.valid[v] > 0; i++ {
		lpn := m.p2l[base+i]
		if lpn == none {
			continue
		}
		// The GC stream can only need a new block when its current one is
		// full; the reserve guarantees one is free.
		if gc.block < 0 {
			if m.freeLen == 0 {
				return ErrNoSpace
			}
			b := m.popFree()
			m.state[b] = blockOpen
			*gc = openBlock{block: int32(b)}
		}
		// Relocate in place of program(): the old page is known (it is in
		// the victim), which saves the map lookup and the bucket logic.
		m.p2l[base+i] = none
		m.valid[v]--
		m.place(gc, lpn)
		m.c.GCPages++
	}
	m.erase(v)
	m.c.GCRuns++
	return nil
}

func (m *Model) erase(b uint32) {
	// Relocation already cleared every p2l entry of the block; unwritten
	// pages of a sealed block were never set.
	m.valid[b] = 0
	m.erases[b]++
	m.c.Erases++
	m.state[b] = blockFree
	m.pushFree(b)
}

// victim picks the block to collect; false if no closed block has an
// invalid page (collecting it would gain nothing).
func (m *Model) victim() (uint32, bool) {
	for m.minBucket <= m.blockPages && m.bucket[m.minBucket] < 0 {
		m.minBucket++
	}
	if m.minBucket >= m.blockPages {
		return 0, false
	}
	if m.cfg.Policy == CostBenefit && m.minBucket > 0 {
		return m.costBenefitVictim(), true
	}
	return uint32(m.bucket[m.minBucket]), true
}

// costBenefitVictim scores up to CostBenefitWindow blocks, walking the
// buckets from the emptiest, and keeps the best (1-u)·age/(1+u).
func (m *Model) costBenefitVictim() uint32 {
	best, bestScore := uint32(m.bucket[m.minBucket]), -1.0
	seen := 0
	bp := float64(m.blockPages)
	for v := m.minBucket; v < m.blockPages && seen < m.cfg.CostBenefitWindow; v++ {
		u := float64(v) / bp
		for b := m.bucket[v]; b >= 0 && seen < m.cfg.CostBenefitWindow; b = m.next[b] {
			age := float64(m.c.NANDPages-m.closeAt[b]) + 1
			score := (1 - u) * age / (1 + u)
			if score > bestScore {
				best, bestScore = uint32(b), score
			}
			seen++
		}
	}
	return best
}

// Wear summarises erase counts (a drive's min/max/average erase count).
type Wear struct {
	Min, Max uint32
	Avg      float64
}

// Wear scans the erase counters; it is O(blocks), meant for log-page reads.
func (m *Model) Wear() Wear {
	w := Wear{Min: ^uint32(0)}
	var sum uint64
	for _, e := range m.erases {
		sum += uint64(e)
		w.Min = min(w.Min, e)
		w.Max = max(w.Max, e)
	}
	w.Avg = float64(sum) / float64(len(m.erases))
	return w
}
