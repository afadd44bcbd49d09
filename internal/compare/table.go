// Package compare builds seed 000's hourly write-amplification table
// (result_WA.txt: NAND MB, host MB, WA per hour) for loadgen runs from
// Prometheus, picks the last 12 non-zero hours of each run and computes
// the WA reduction of a candidate run against a baseline run. Runs may be
// days apart: each is aligned by hours since its own start.
package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
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

// WriteText prints the table like result_WA.txt; its first column is
// headed unit, the round's name (hour, round).
func WriteText(w io.Writer, hours []Hour, unit string) error {
	n := max(4, len(unit))
	if _, err := fmt.Fprintf(w, "%*s %12s %12s %8s\n", n, unit, "NAND_MB", "host_MB", "WA"); err != nil {
		return err
	}
	for _, h := range hours {
		var err error
		switch {
		case h.Missing != "":
			_, err = fmt.Fprintf(w, "%*d %12s %12s %8s  (%s)\n", n, h.Hour, "-", "-", "missing", h.Missing)
		case h.HostBytes <= 0:
			// No host writes: WA is undefined, not 0.
			_, err = fmt.Fprintf(w, "%*d %12.0f %12.0f %8s\n", n, h.Hour, h.NANDBytes/MiB, h.HostBytes/MiB, "idle")
		default:
			_, err = fmt.Fprintf(w, "%*d %12.0f %12.0f %8.5f\n", n, h.Hour, h.NANDBytes/MiB, h.HostBytes/MiB, h.WA())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteCSV writes run, hour, NAND MB, host MB and WA rows for several runs.
func WriteCSV(w io.Writer, runs []Run, tables [][]Hour) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"run_id", "scenario", "hour", "nand_mb", "host_mb", "wa", "missing"}); err != nil {
		return err
	}
	for i, r := range runs {
		for _, h := range tables[i] {
			if h.Missing != "" {
				// Empty figures, never 0: a missing hour is not an idle one.
				if err := cw.Write([]string{csvText(r.ID), csvText(r.Scenario), strconv.Itoa(h.Hour), "", "", "", csvText(h.Missing)}); err != nil {
					return err
				}
				continue
			}
			wa := "" // idle: undefined, not 0
			if h.NonZero() {
				wa = strconv.FormatFloat(h.WA(), 'f', 5, 64)
			}
			rec := []string{csvText(r.ID), csvText(r.Scenario), strconv.Itoa(h.Hour),
				strconv.FormatFloat(h.NANDBytes/MiB, 'f', 3, 64),
				strconv.FormatFloat(h.HostBytes/MiB, 'f', 3, 64), wa, ""}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
