package compare

// RAIDLatency is seed 001's latency overhead of an array's software over
// the performance rounds: the array's average time per request (iostat's
// r_await, w_await of the md or dm device) against its slowest member's.
// A figure is nil when it is not known: no request of that kind in the
// window, or a member without one (the slowest of the others would not be
// the slowest).
type RAIDLatency struct {
	ReadArraySec, ReadSlowestMemberSec   *float64 `json:",omitempty"`
	WriteArraySec, WriteSlowestMemberSec *float64 `json:",omitempty"`
}

// ReadOverhead is the array's r_await minus its slowest member's; nil
// when either is unknown (never 0 for a missing figure) or l is nil.
func (l *RAIDLatency) ReadOverhead() *float64 {
	if l == nil {
		return nil
	}
	return difference(l.ReadArraySec, l.ReadSlowestMemberSec)
}

// WriteOverhead is the array's w_await minus its slowest member's; nil
// when either is unknown or l is nil.
func (l *RAIDLatency) WriteOverhead() *float64 {
	if l == nil {
		return nil
	}
	return difference(l.WriteArraySec, l.WriteSlowestMemberSec)
}

func difference(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	d := *a - *b
	return &d
}
