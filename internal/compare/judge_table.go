package compare

import (
	"fmt"
	"time"
)

// MiB is the table's "MB": seed 000 divides 4 KiB sectors by 256.
const MiB = 1 << 20

// Run is one loadgen run as walab_loadgen_run_info shows it.
type Run struct {
	ID, Scenario string
	Start, End   time.Time
}

// Hour is one row of the hourly table.
type Hour struct {
	Hour      int     // 1 = the first full hour after the run start
	NANDBytes float64 // media bytes written in the hour
	HostBytes float64 // host bytes written in the hour (for an array: bytes written to the array)
	// MemberBytes is, for an array (ArrayTable), the sum of its members'
	// block writes in the hour; 0 for a device.
	MemberBytes float64 `json:",omitempty"`
	At          time.Time
	// Missing, when set, says why the hour has no trustworthy figures (no
	// NAND data: the drive's NAND source was down, the exporter or
	// Prometheus was not scraping). Such an hour is neither idle nor WA 0:
	// it is left out of every aggregate and reported.
	Missing string
}

// WA is NAND / host bytes, 0 for an idle or a missing hour (check NonZero
// and Missing before printing it).
func (h Hour) WA() float64 {
	if h.HostBytes <= 0 || h.Missing != "" {
		return 0
	}
	return h.NANDBytes / h.HostBytes
}

// NonZero reports whether the hour is complete and the device took host
// writes in it.
func (h Hour) NonZero() bool { return h.HostBytes > 0 && h.Missing == "" }

// MissingHours returns the hours without trustworthy figures.
func MissingHours(hours []Hour) []Hour {
	var out []Hour
	for _, h := range hours {
		if h.Missing != "" {
			out = append(out, h)
		}
	}
	return out
}

// LastNonZero returns the last n complete hours with host writes, in order
// (seed 000: "pick the last 12 non-zero rows"); missing hours are skipped.
func LastNonZero(hours []Hour, n int) []Hour {
	var out []Hour
	for i := len(hours) - 1; i >= 0 && len(out) < n; i-- {
		if hours[i].NonZero() {
			out = append(out, hours[i])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// AggregateWA is sum(NAND) / sum(host) over the complete hours: the WA of
// the period as a whole, not a mean of hourly ratios (which over-weights
// idle hours).
func AggregateWA(hours []Hour) float64 {
	var nand, host float64
	for _, h := range hours {
		if h.Missing != "" {
			continue
		}
		nand += h.NANDBytes
		host += h.HostBytes
	}
	if host <= 0 {
		return 0
	}
	return nand / host
}

// Reduction is (baseline - candidate) / baseline; 0.12 is seed 000's 12 %.
func Reduction(baseline, candidate float64) (float64, error) {
	if baseline <= 0 {
		return 0, fmt.Errorf("baseline WA is %v: no host writes in the baseline's hours", baseline)
	}
	return (baseline - candidate) / baseline, nil
}

// RAIDWA is member bytes per array byte (0 where undefined).
func (h Hour) RAIDWA() float64 {
	if h.HostBytes <= 0 || h.Missing != "" {
		return 0
	}
	return h.MemberBytes / h.HostBytes
}

// AggregateRAIDWA is sum(member) / sum(array) over the rounds with writes.
func AggregateRAIDWA(hours []Hour) float64 {
	var m, a float64
	for _, h := range hours {
		if h.NonZero() {
			m += h.MemberBytes
			a += h.HostBytes
		}
	}
	if a <= 0 {
		return 0
	}
	return m / a
}

// Pair is one round's numerator and denominator (NAND and host bytes; or
// transactions and 1).
type Pair struct{ Num, Den float64 }
