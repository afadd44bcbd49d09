package compare

import (
	"fmt"
	"io"
	"strings"
)

// writeRounds prints each compared round's figures of both runs (WA,
// transactions/s, p95 and p99 latency), so a reader sees the spread the
// intervals come from. A figure a round lacks is "-".
func (r *Result) writeRounds(w io.Writer) {
	if len(r.Last[0]) == 0 && len(r.Last[1]) == 0 {
		return
	}
	unit := roundName(r.Round)
	fmt.Fprintf(w, "compared %ss, one line each (the intervals come from their spread):\n", unit)
	fmt.Fprintf(w, "%-10s %6s %9s %14s %10s %10s\n", "run", unit, "WA", "transactions/s", "p95 (ms)", "p99 (ms)")
	for i, role := range roles {
		f := r.Facts[i]
		// The performance figures are of r.Perf[i], a suffix of r.Last[i].
		skip := len(r.Last[i]) - len(r.Perf[i])
		for j, h := range r.Last[i] {
			wa := "-"
			if h.NonZero() {
				wa = fmt.Sprintf("%.4f", h.WA())
			}
			fmt.Fprintf(w, "%-10s %6d %9s %14s %10s %10s\n", role, h.Hour, wa,
				roundCell(f.Txn, j-skip, 1/r.Round.Seconds(), "%.2f"),
				roundCell(f.P95Rounds, j-skip, 1000, "%.2f"), roundCell(f.P99Rounds, j-skip, 1000, "%.2f"))
		}
	}
	fmt.Fprintln(w)
}

// roundCell formats xs[j]·k, or "-" when the round has no figure (j out
// of range: a round before the throughput's steady state).
func roundCell(xs []*float64, j int, k float64, format string) string {
	if j < 0 || j >= len(xs) || xs[j] == nil {
		return "-"
	}
	return strings.TrimSpace(fmt.Sprintf(format, *xs[j]*k))
}

// RoundsTPS is run i's mean committed transactions per second over the
// compared rounds that have a figure: the figure the verdict's throughput
// change is about, which leaves out the same rounds (a partial round, or one
// loadgen did not drive from end to end, has none). nil when no round has
// one; n is the number of rounds with a figure.
func (r *Result) RoundsTPS(i int) (tps *float64, n int) {
	return meanPerSecond(r.Facts[i].Txn, r.Round.Seconds())
}

// meanPerSecond is the mean of the rounds' figures that are set, per second
// of a round of secs; nil when none is.
func meanPerSecond(xs []*float64, secs float64) (mean *float64, n int) {
	var s float64
	for _, x := range xs {
		if x != nil {
			s += *x
			n++
		}
	}
	if n == 0 {
		return nil, 0
	}
	v := s / float64(n) / secs
	return &v, n
}

// withoutFigure is how many of xs have no figure.
func withoutFigure(xs []*float64) (n int) {
	for _, x := range xs {
		if x == nil {
			n++
		}
	}
	return n
}
