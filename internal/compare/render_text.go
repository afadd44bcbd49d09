package compare

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteArrayText prints seed 001's table: array, member and NAND bytes per
// round, the RAID WA and the chain's WA.
func WriteArrayText(w io.Writer, hours []Hour, unit string) error {
	n := max(4, len(unit))
	if _, err := fmt.Fprintf(w, "%*s %12s %12s %8s %12s %8s\n", n, unit, "array_MB", "members_MB", "RAID_WA", "NAND_MB", "WA"); err != nil {
		return err
	}
	for _, h := range hours {
		var err error
		switch {
		case h.Missing != "":
			_, err = fmt.Fprintf(w, "%*d %12s %12s %8s %12s %8s  (%s)\n", n, h.Hour, "-", "-", "-", "-", "missing", h.Missing)
		case h.HostBytes <= 0:
			_, err = fmt.Fprintf(w, "%*d %12.0f %12.0f %8s %12.0f %8s\n", n, h.Hour, h.HostBytes/MiB, h.MemberBytes/MiB, "idle", h.NANDBytes/MiB, "idle")
		default:
			_, err = fmt.Fprintf(w, "%*d %12.0f %12.0f %8.4f %12.0f %8.5f\n", n, h.Hour, h.HostBytes/MiB, h.MemberBytes/MiB, h.RAIDWA(), h.NANDBytes/MiB, h.WA())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

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

// Write prints the verdict, its checks, both tables and the figures of the
// compared rounds. A comparison that is NOT VALID prints no reduction
// unless allowInvalid.
func (r *Result) Write(w io.Writer, allowInvalid bool) error {
	w = PlainText(w) // labels from the store reach a terminal
	v := r.Verdict
	fmt.Fprintln(w, v.Headline(r))
	for _, c := range v.Checks {
		fmt.Fprintf(w, "  %-7s %-22s %s\n", c.Status, c.Name, c.Detail)
	}
	fmt.Fprintln(w)
	unit := roundName(r.Round)
	for i, role := range roles {
		run := r.Runs[i]
		fmt.Fprintf(w, "%s run %s (scenario %s): %s .. %s%s\n", role, run.ID, run.Scenario,
			run.Start.UTC().Format(time.RFC3339), run.End.UTC().Format(time.RFC3339), roundLength(r.Round))
		write := WriteText
		if r.Array != "" {
			write = WriteArrayText
		}
		if err := write(w, r.Tables[i], unit); err != nil {
			return err
		}
		steady := "never"
		if r.SteadyAt[i] > 0 {
			steady = fmt.Sprintf("from %s %d", unit, r.SteadyAt[i])
		}
		fmt.Fprintf(w, "steady state (%s window): %s\n", r.steadyName, steady)
		fmt.Fprintf(w, "compared %d %ss (%d..%d): WA %.5f, %s\n", len(r.Last[i]), unit, r.Last[i][0].Hour, r.Last[i][len(r.Last[i])-1].Hour, r.WA[i], r.Trend[i])
		if wb := r.writtenBefore(i); wb != nil {
			fmt.Fprintf(w, "host writes from the run's start to its first compared %s: %.2f drive capacities\n", unit, *wb)
		}
		if r.Array != "" {
			raid := AggregateRAIDWA(r.Last[i])
			if th := r.Facts[i].RAIDTheory; th != nil && raid > 0 {
				fmt.Fprintf(w, "RAID WA (member / array bytes) over those %ss: %.4f against %.4f in theory: software overhead (WA - theory) / WA %.2f%%\n", unit, raid, *th, 100*(raid-*th)/raid)
			} else {
				fmt.Fprintf(w, "RAID WA (member / array bytes) over those %ss: %.4f (no theoretical value: not an md level walab knows)\n", unit, raid)
			}
		}
		if m := r.Missing[i]; len(m) > 0 {
			fmt.Fprintf(w, "MISSING: %d of %d %ss have no trustworthy NAND/host figures (%ss %s); they are not counted, not taken as WA 0\n",
				len(m), len(r.Tables[i]), unit, unit, hourList(m))
		}
		fmt.Fprintln(w)
	}
	r.writePerformance(w)
	r.writeRounds(w)
	if !v.Valid && !allowInvalid {
		_, err := fmt.Fprintln(w, "The comparison is NOT VALID: no reduction is reported (--allow-invalid prints it anyway).")
		return err
	}
	if _, err := fmt.Fprintf(w, "WA reduction (baseline - candidate) / baseline: %.2f%%\n", 100*r.Reduction); err != nil {
		return err
	}
	if r.Array != "" {
		_, err := fmt.Fprintf(w, "(WA here is array to NAND: the NAND bytes of %s's drives per byte written to %s)\n", r.Array, r.Array)
		return err
	}
	// The baseline's steady WA is the reference WalabWARegression watches.
	_, err := fmt.Fprintf(w, "alerts/config.yml reference_wa for this baseline: {%q: %.3f}\n", r.Device, r.WA[0])
	return err
}

// perfSpan names the rounds throughput and latency come from when they
// are fewer than the compared rounds (throughput settled later than WA).
func (r *Result) perfSpan() string {
	if len(r.Perf[0]) == len(r.Last[0]) && len(r.Perf[1]) == len(r.Last[1]) {
		return ""
	}
	span := func(hs []Hour) string {
		if len(hs) == 0 {
			return "none"
		}
		return fmt.Sprintf("%d–%d", hs[0].Hour, hs[len(hs)-1].Hour)
	}
	return fmt.Sprintf(" (throughput and latency over %ss %s / %s, from the throughput's steady state)", roundName(r.Round), span(r.Perf[0]), span(r.Perf[1]))
}

// perfRow is one line of the performance table: the figure of each run,
// its format, and the change's 95% interval when the rounds give one.
type perfRow struct {
	name   string
	b, c   *float64
	format string
	ci     *Interval
}

// perfRows are the performance table's lines, nil where a run has no figure.
func (r *Result) perfRows() []perfRow {
	b, c := r.Facts[0], r.Facts[1]
	// Over the rounds with a figure, as the verdict's intervals are.
	sum := func(xs []*float64) *float64 {
		v, _ := meanPerSecond(xs, r.Round.Seconds())
		return v
	}
	scaled := func(x *float64, k float64) *float64 {
		if x == nil {
			return nil
		}
		v := *x * k
		return &v
	}
	v := &r.Verdict
	txn := "transactions/s"
	switch {
	case b.TxnSource == TxnServer && c.TxnSource == TxnServer:
		txn = "transactions/s (server COMMITs)"
	case b.TxnSource != "" && c.TxnSource != "" && b.TxnSource != c.TxnSource:
		txn = fmt.Sprintf("transactions/s (%s vs %s)", b.TxnSource, c.TxnSource)
	}
	return []perfRow{
		{txn, sum(b.Txn), sum(c.Txn), "%.2f", &v.Throughput},
		{"New-Orders/s (tpmC/60)", sum(b.NewOrder), sum(c.NewOrder), "%.2f", &v.TpmC},
		{"latency p95 (ms)", scaled(b.P95, 1000), scaled(c.P95, 1000), "%.2f", &v.P95},
		{"latency p99 (ms)", scaled(b.P99, 1000), scaled(c.P99, 1000), "%.2f", &v.P99},
		{"block w/s", b.Block.WritesPerSec, c.Block.WritesPerSec, "%.1f", nil},
		{"block wMB/s", scaled(b.Block.WriteBytesPerSec, 1.0/MiB), scaled(c.Block.WriteBytesPerSec, 1.0/MiB), "%.2f", nil},
		{"block w_await (ms)", scaled(b.Block.WriteAwaitSec, 1000), scaled(c.Block.WriteAwaitSec, 1000), "%.3f", nil},
		{"block %util", scaled(b.Block.Util, 100), scaled(c.Block.Util, 100), "%.1f", nil},
		// Seed 001: what the RAID software adds over its slowest member.
		{"RAID read latency overhead (ms)", scaled(b.RAIDLatency.ReadOverhead(), 1000), scaled(c.RAIDLatency.ReadOverhead(), 1000), "%.3f", nil},
		{"RAID write latency overhead (ms)", scaled(b.RAIDLatency.WriteOverhead(), 1000), scaled(c.RAIDLatency.WriteOverhead(), 1000), "%.3f", nil},
	}
}

// perfLine prints one row; mixed says the runs counted throughput from
// different sources, which is no change to report.
func perfLine(row perfRow, mixed bool) string {
	cell := func(x *float64) string {
		if x == nil {
			return "-"
		}
		return fmt.Sprintf(row.format, *x)
	}
	change := "-"
	if row.b != nil && row.c != nil && *row.b != 0 && !mixed {
		change = fmt.Sprintf("%+.1f%%", 100*(*row.c-*row.b) / *row.b)
	}
	ci := ""
	if row.ci != nil && row.ci.OK && !mixed {
		ci = fmt.Sprintf("[%+.1f, %+.1f]", 100*row.ci.Lo, 100*row.ci.Hi)
		if !row.ci.Significant() {
			ci += " not significant"
		}
	}
	return strings.TrimRight(fmt.Sprintf("%-32s %14s %14s %9s  %s", row.name, cell(row.b), cell(row.c), change, ci), " ")
}

// writePerformance prints the performance side over the compared rounds:
// throughput, latency and the block layer of each run, and the change.
// A figure a run lacks is "-", never 0.
func (r *Result) writePerformance(w io.Writer) {
	b, c := r.Facts[0], r.Facts[1]
	rows := r.perfRows()
	any := false
	for _, row := range rows {
		any = any || row.b != nil || row.c != nil
	}
	if !any {
		return
	}
	fmt.Fprintf(w, "performance over the compared %ss%s:\n%-32s %14s %14s %9s  %s\n", roundName(r.Round), r.perfSpan(), "", "baseline", "candidate", "change", "95% interval")
	for _, row := range rows {
		if row.b == nil && row.c == nil {
			continue
		}
		// Throughput counted by loadgen in one run and by the server in
		// the other is no change to report.
		fmt.Fprintln(w, perfLine(row, row.ci == &r.Verdict.Throughput && b.TxnSource != c.TxnSource))
	}
	if nb, nc := withoutFigure(b.Txn), withoutFigure(c.Txn); nb+nc > 0 {
		fmt.Fprintf(w, "(throughput over the %ss with a figure: %d of %d baseline, %d of %d candidate; a partial %s, or one loadgen did not drive from end to end, has none)\n",
			roundName(r.Round), len(b.Txn)-nb, len(b.Txn), len(c.Txn)-nc, len(c.Txn), roundName(r.Round))
	}
	if r.Array != "" {
		fmt.Fprintf(w, "(RAID latency overhead: %s's r_await or w_await minus its slowest member's; \"-\" when the array or a member had no such request)\n", r.Array)
	}
	fmt.Fprintln(w)
}

// Headline is the verdict's first line: VALID with the WA change and the
// throughput change and their 95% intervals, or NOT VALID and why.
func (v Verdict) Headline(r *Result) string {
	if !v.Valid {
		return "NOT VALID: " + strings.Join(v.Reasons, "; ")
	}
	steady := fmt.Sprintf("steady from %s%d / %s%d", roundLetter(r.Round), r.SteadyAt[0], roundLetter(r.Round), r.SteadyAt[1])
	s := fmt.Sprintf("VALID  WA %s (%s)", fmtInterval(v.WA), steady)
	if v.TpmC.OK || v.TpmC.Est != 0 {
		s += "  tpmC " + fmtInterval(v.TpmC)
	}
	if v.Throughput.OK || v.Throughput.Est != 0 {
		s += "  throughput " + fmtInterval(v.Throughput)
	}
	return s
}

func roundLetter(d interface{ Hours() float64 }) string {
	if d.Hours() == 1 {
		return "h"
	}
	return "r"
}

func fmtInterval(i Interval) string {
	if !i.OK {
		if i.Why == "" || i.Why == "no baseline figure" {
			return "n/a"
		}
		return fmt.Sprintf("%+.1f%% (no interval: %s)", 100*i.Est, i.Why)
	}
	s := fmt.Sprintf("%+.1f%% [%+.1f, %+.1f]", 100*i.Est, 100*i.Lo, 100*i.Hi)
	if !i.Significant() {
		s += " not significant"
	}
	return s
}
