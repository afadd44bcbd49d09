package runner

import (
	"container/heap"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// termHeap orders simulated terminals by the virtual time they are free.
type termHeap []time.Time

func (h termHeap) Len() int           { return len(h) }
func (h termHeap) Less(i, j int) bool { return h[i].Before(h[j]) }
func (h termHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *termHeap) Push(x any)        { *h = append(*h, x.(time.Time)) }
func (h *termHeap) Pop() any          { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

// simulate runs terminals on a virtual clock: each free terminal claims the
// next slot, waits until its intended start (or starts late if it is
// behind), and is busy for a random service time. It returns the number of
// transactions started in [start, start+window) and the worst lateness.
func simulate(rate float64, terminals int, service func(*rand.Rand) time.Duration, window time.Duration) (int, time.Duration) {
	start := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	s := NewSchedule(start, rate)
	r := rand.New(rand.NewPCG(1, 2))
	h := make(termHeap, terminals)
	for i := range h {
		h[i] = start
	}
	heap.Init(&h)
	started := 0
	var worst time.Duration
	for {
		free := heap.Pop(&h).(time.Time)
		_, at := s.Claim()
		begin := at
		if free.After(at) {
			begin = free // behind schedule: start now, latency counts from at
		}
		if !begin.Before(start.Add(window)) {
			return started, worst
		}
		worst = max(worst, begin.Sub(at))
		started++
		heap.Push(&h, begin.Add(service(r)))
	}
}

func TestScheduleRateOverAMinute(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rate      float64
		terminals int
		service   func(*rand.Rand) time.Duration
	}{
		{"light load", 100, 4, func(r *rand.Rand) time.Duration { return time.Duration(r.IntN(5)+1) * time.Millisecond }},
		// Each terminal alone could do 1/0.03s = 33 tps; 8 of them reach 266 > 200.
		{"busy terminals", 200, 8, func(r *rand.Rand) time.Duration { return time.Duration(20+r.IntN(20)) * time.Millisecond }},
		// Occasional 2 s stalls (an SSD GC pause): the schedule catches up instead of drifting.
		{"stalls", 50, 4, func(r *rand.Rand) time.Duration {
			if r.IntN(500) == 0 {
				return 2 * time.Second
			}
			return 5 * time.Millisecond
		}},
		{"fractional rate", 7.5, 2, func(*rand.Rand) time.Duration { return time.Millisecond }},
		{"tpcc limitTxnsPerMin=1000", 1000.0 / 60, 10, func(*rand.Rand) time.Duration { return 50 * time.Millisecond }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := simulate(tc.rate, tc.terminals, tc.service, time.Minute)
			want := tc.rate * 60
			require.InDelta(t, want, float64(got), want*0.02, "started %d in a minute, want %.0f ±2%%", got, want)
		})
	}
}

func TestScheduleTooSlowShowsLateness(t *testing.T) {
	// 2 terminals at 100 ms each can do 20 tps; asked for 40 they fall
	// behind, and the lateness (measured from intended starts) grows
	// instead of being hidden.
	got, worst := simulate(40, 2, func(*rand.Rand) time.Duration { return 100 * time.Millisecond }, 10*time.Second)
	require.InDelta(t, 200, got, 2)
	require.Greater(t, worst, 4*time.Second)
}

func TestScheduleSlots(t *testing.T) {
	start := time.Unix(1000, 0)
	s := NewSchedule(start, 4)
	for k := range int64(9) {
		got, at := s.Claim()
		require.Equal(t, k, got)
		require.Equal(t, start.Add(time.Duration(k)*250*time.Millisecond), at)
	}
	require.Equal(t, int64(9), s.Claimed())
	require.Equal(t, int64(0), s.Due(start.Add(-time.Second)))
	require.Equal(t, int64(1), s.Due(start))
	require.Equal(t, int64(41), s.Due(start.Add(10*time.Second)))
	require.Equal(t, int64(32), s.Backlog(start.Add(10*time.Second)))
	require.Equal(t, int64(0), s.Backlog(start))
	// No accumulated float error far into a 12 h run.
	require.Equal(t, start.Add(12*time.Hour), NewSchedule(start, 3).At(3*12*3600))
}
