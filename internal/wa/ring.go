package wa

import "sort"

// sample is one reading; T is Unix milliseconds (enough for minute sampling,
// and it keeps the state file integer-only).
type sample struct {
	T     int64
	Host  uint64
	Media uint64
}

// ring is a fixed-capacity FIFO of samples in time order; pushing onto a
// full ring drops the oldest, so memory never grows past the capacity.
type ring struct {
	buf   []sample
	start int
	n     int
}

func newRing(capacity int) *ring { return &ring{buf: make([]sample, capacity)} }

func (r *ring) len() int { return r.n }

// at returns the i-th oldest sample.
func (r *ring) at(i int) sample { return r.buf[(r.start+i)%len(r.buf)] }

func (r *ring) last() (sample, bool) {
	if r.n == 0 {
		return sample{}, false
	}
	return r.at(r.n - 1), true
}

func (r *ring) push(s sample) {
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = s
		r.n++
		return
	}
	r.buf[r.start] = s
	r.start = (r.start + 1) % len(r.buf)
}

func (r *ring) clear() { r.start, r.n = 0, 0 }

// truncate keeps the n oldest samples.
func (r *ring) truncate(n int) { r.n = min(r.n, n) }

// dropBefore removes samples older than t.
func (r *ring) dropBefore(t int64) {
	k := r.firstAtOrAfter(t)
	r.start = (r.start + k) % len(r.buf)
	r.n -= k
}

// firstAtOrAfter is the index of the oldest sample with T >= t (n if none).
func (r *ring) firstAtOrAfter(t int64) int {
	return sort.Search(r.n, func(i int) bool { return r.at(i).T >= t })
}
