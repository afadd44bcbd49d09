package runner

import (
	"math"
	"sync/atomic"
)

// Latency histogram like sysbench's: histBuckets logarithmic buckets from
// histMinMs to histMaxMs. Each terminal owns its histograms and updates them
// with atomics, so the reporter can read them without stopping anyone.
const (
	histBuckets = 1024
	histMinMs   = 0.001
	histMaxMs   = 100000.0
)

var (
	histLogMin = math.Log(histMinMs)
	histMult   = float64(histBuckets-1) / (math.Log(histMaxMs) - histLogMin)
)

func bucketOf(ms float64) int {
	if ms <= histMinMs {
		return 0
	}
	i := int((math.Log(ms) - histLogMin) * histMult)
	return min(max(i, 0), histBuckets-1)
}

// bucketUpperMs is the upper bound of bucket i, the value a percentile
// falling into it reports (as sysbench does, a bucket's bound, not the exact value).
func bucketUpperMs(i int) float64 {
	return math.Exp(float64(i+1)/histMult + histLogMin)
}

type histogram struct {
	counts [histBuckets]atomic.Uint64
}

func (h *histogram) observe(ms float64) { h.counts[bucketOf(ms)].Add(1) }

// histSnap is a plain copy that can be added and subtracted.
type histSnap [histBuckets]uint64

func (s *histSnap) add(h *histogram) {
	for i := range h.counts {
		s[i] += h.counts[i].Load()
	}
}

func (s *histSnap) sub(o *histSnap) histSnap {
	var d histSnap
	for i := range s {
		d[i] = s[i] - o[i]
	}
	return d
}

func (s *histSnap) total() uint64 {
	var n uint64
	for _, c := range s {
		n += c
	}
	return n
}

// percentile returns the upper bound (ms) of the bucket holding the p-th
// percentile, 0 when empty.
func (s *histSnap) percentile(p float64) float64 {
	n := s.total()
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(float64(n) * p / 100))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range s {
		seen += c
		if seen >= rank {
			return bucketUpperMs(i)
		}
	}
	return histMaxMs
}
