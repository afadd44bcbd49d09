package runner

import (
	"math"
	"sync/atomic"
	"time"
)

// Outcome labels of walab_loadgen_transactions_total.
const (
	OutCommitted    = "committed"
	OutUserRollback = "user_rollback"
	OutRetried      = "retried"
	OutError        = "error"
)

var outcomes = []string{OutCommitted, OutUserRollback, OutRetried, OutError}

const (
	oCommitted = iota
	oRollback
	oRetried
	oError
	nOutcomes
)

// typeStats are one terminal's counters for one transaction type.
type typeStats struct {
	out   [nOutcomes]atomic.Uint64
	hist  histogram // latency of completed transactions (committed, user_rollback)
	sumNs atomic.Int64
	minNs atomic.Int64 // 0 = none yet
	maxNs atomic.Int64
}

// termStats is owned by one terminal and read by the reporter.
type termStats struct {
	types                 []typeStats
	reads, writes, others atomic.Uint64
	readBytes, wroteBytes atomic.Uint64
	reconnects            atomic.Uint64
	connFails             atomic.Uint64 // failed connection attempts
	busyNs                atomic.Int64  // time inside transactions
	events                atomic.Uint64
	state                 atomic.Int32 // stIdle, stBusy, stAbandoned
	curType               atomic.Int32 // type index of the transaction in Run
	// connected is set once the terminal has had a connection; until
	// then lastConnErr holds why it has none.
	connected   atomic.Bool
	lastConnErr atomic.Pointer[string]
}

func newTermStats(nTypes int) *termStats {
	return &termStats{types: make([]typeStats, nTypes)}
}

func (t *typeStats) observe(d time.Duration) {
	ns := int64(d)
	t.hist.observe(float64(ns) / 1e6)
	t.sumNs.Add(ns)
	if m := t.minNs.Load(); m == 0 || ns < m {
		t.minNs.Store(max(ns, 1))
	}
	if ns > t.maxNs.Load() {
		t.maxNs.Store(ns)
	}
}

// typeSnap is a point-in-time copy of typeStats summed over terminals.
type typeSnap struct {
	Out          [nOutcomes]uint64
	Hist         histSnap
	SumNs        int64
	MinNs, MaxNs int64
}

// snapshot is everything a report line or summary needs.
type snapshot struct {
	At                    time.Time
	Types                 []typeSnap
	Reads, Writes, Others uint64
	ReadBytes, WroteBytes uint64
	Reconnects            uint64
	ConnFails             uint64
	PerTermEvents         []uint64
	PerTermBusy           []time.Duration
	// NeverConnected counts terminals that never got a connection, by the
	// last error they saw.
	NeverConnected map[string]int
}

func takeSnapshot(at time.Time, terms []*termStats, nTypes int) *snapshot {
	s := &snapshot{At: at, Types: make([]typeSnap, nTypes)}
	for _, t := range terms {
		for i := range t.types {
			ts, src := &s.Types[i], &t.types[i]
			for o := range ts.Out {
				ts.Out[o] += src.out[o].Load()
			}
			ts.Hist.add(&src.hist)
			ts.SumNs += src.sumNs.Load()
			if m := src.minNs.Load(); m != 0 && (ts.MinNs == 0 || m < ts.MinNs) {
				ts.MinNs = m
			}
			ts.MaxNs = max(ts.MaxNs, src.maxNs.Load())
		}
		s.Reads += t.reads.Load()
		s.Writes += t.writes.Load()
		s.Others += t.others.Load()
		s.ReadBytes += t.readBytes.Load()
		s.WroteBytes += t.wroteBytes.Load()
		s.Reconnects += t.reconnects.Load()
		s.ConnFails += t.connFails.Load()
		if !t.connected.Load() {
			if e := t.lastConnErr.Load(); e != nil {
				if s.NeverConnected == nil {
					s.NeverConnected = map[string]int{}
				}
				s.NeverConnected[*e]++
			}
		}
		s.PerTermEvents = append(s.PerTermEvents, t.events.Load())
		s.PerTermBusy = append(s.PerTermBusy, time.Duration(t.busyNs.Load()))
	}
	return s
}

// all merges the types.
func (s *snapshot) all() typeSnap {
	var a typeSnap
	for _, t := range s.Types {
		for o := range a.Out {
			a.Out[o] += t.Out[o]
		}
		for i := range a.Hist {
			a.Hist[i] += t.Hist[i]
		}
		a.SumNs += t.SumNs
		if t.MinNs != 0 && (a.MinNs == 0 || t.MinNs < a.MinNs) {
			a.MinNs = t.MinNs
		}
		a.MaxNs = max(a.MaxNs, t.MaxNs)
	}
	return a
}

// completed is transactions that ran to their end: committed or rolled back by the workload.
func (t *typeSnap) completed() uint64 { return t.Out[oCommitted] + t.Out[oRollback] }

func meanStddev(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / float64(len(xs)))
}
