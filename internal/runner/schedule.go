package runner

import (
	"context"
	"sync/atomic"
	"time"
)

// Clock is the time source; tests inject a virtual one.
type Clock interface {
	Now() time.Time
	// SleepUntil returns when t is reached or ctx ends (with ctx's error).
	SleepUntil(ctx context.Context, t time.Time) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) SleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// Schedule hands out intended start times start + k/rate for k = 0, 1, ...
// to all terminals of a target. Times are computed from k, never from the
// previous start, so a slow transaction does not push later ones back
// (no drift), and latency is measured from the intended time, so a stalled
// server shows as latency instead of silently lowering the offered load
// (no coordinated omission).
type Schedule struct {
	start time.Time
	rate  float64 // transactions per second, > 0
	next  atomic.Int64
}

// NewSchedule starts a schedule at start; rate must be > 0.
func NewSchedule(start time.Time, rate float64) *Schedule {
	return &Schedule{start: start, rate: rate}
}

// At returns the intended start of the k-th transaction.
func (s *Schedule) At(k int64) time.Time {
	return s.start.Add(time.Duration(float64(k) * float64(time.Second) / s.rate))
}

// Claim takes the next slot.
func (s *Schedule) Claim() (int64, time.Time) {
	k := s.next.Add(1) - 1
	return k, s.At(k)
}

// Claimed is how many slots were handed out.
func (s *Schedule) Claimed() int64 { return s.next.Load() }

// Due is how many slots are due by now (intended start <= now).
func (s *Schedule) Due(now time.Time) int64 {
	if now.Before(s.start) {
		return 0
	}
	return int64(now.Sub(s.start).Seconds()*s.rate) + 1
}

// Backlog is sysbench's "queue length": slots due but not yet claimed by a
// free terminal.
func (s *Schedule) Backlog(now time.Time) int64 {
	return max(s.Due(now)-s.Claimed(), 0)
}
