package blockdev

// The kernel prints diskstats' millisecond columns as 32-bit unsigned
// integers (block/genhd.c diskstats_show): they wrap after 2^32 ms, 49.7
// days of one busy queue, and much sooner for time_in_queue, which grows by
// the queue depth per millisecond (71 minutes at depth 1000). Prometheus
// would read a wrap as a counter reset and lose the time before it.

const wrap32 = 1 << 32

// Widener extends those columns to 64 bits across wraps, as long as it sees
// the device at least once per wrap period. A device whose 64-bit counters
// go back (it was removed and re-created) starts again from the kernel's
// values. The zero value is ready to use; it is not safe for concurrent use.
type Widener struct {
	last map[string]widened
}

type widened struct {
	raw   Stat      // the kernel's values last seen
	carry [6]uint64 // multiples of 2^32 added to each 32-bit column
}

func ticks(s *Stat) [6]*uint64 {
	return [6]*uint64{&s.ReadTicks, &s.WriteTicks, &s.IOTicks, &s.TimeInQueue, &s.DiscardTicks, &s.FlushTicks}
}

// Widen returns stats with the 32-bit columns widened, and forgets devices
// that are no longer in stats.
func (w *Widener) Widen(stats []Stat) []Stat {
	next := make(map[string]widened, len(stats))
	out := make([]Stat, len(stats))
	for i, s := range stats {
		st := widened{raw: s}
		if prev, ok := w.last[s.Name]; ok && sameDevice(prev.raw, s) {
			st.carry = prev.carry
			now, was := ticks(&s), ticks(&prev.raw)
			for j := range now {
				if *now[j] < *was[j] && *was[j] < wrap32 {
					st.carry[j] += wrap32
				}
			}
		}
		out[i] = s
		t := ticks(&out[i])
		for j := range t {
			*t[j] += st.carry[j]
		}
		next[s.Name] = st
	}
	w.last = next
	return out
}

// sameDevice: same numbers and no 64-bit counter went back.
func sameDevice(a, b Stat) bool {
	return a.Major == b.Major && a.Minor == b.Minor &&
		b.ReadIOs >= a.ReadIOs && b.WriteIOs >= a.WriteIOs &&
		b.ReadSectors >= a.ReadSectors && b.WriteSectors >= a.WriteSectors &&
		b.DiscardIOs >= a.DiscardIOs && b.FlushIOs >= a.FlushIOs
}
