// Package sizeprofile is seed 001's I/O-size profile of a run: for every
// block device and operation, the I/Os submitted to it between a run's
// start and end fingerprints (the exporter's io_size histogram), their
// mean size and their share in each power-of-two size bucket. Plain values
// in, Markdown rows out: the experiment's report prints them under each
// run.
//
// A profile that is not known is absent with its reason, never zeros: no
// histogram at the run's start (the collector off, or its tracer not
// running), bounds that differ between the two ends, or counts that went
// backwards (the exporter restarted during the run).
package sizeprofile

import (
	"fmt"
	"sort"
	"strings"

	"github.com/walab/walab/internal/fingerprint"
)

// Row is one device's and operation's I/Os during a run.
type Row struct {
	Device, Op string
	IOs        uint64
	Bytes      float64
	// Buckets are the I/Os in each bucket (not cumulative): at or
	// below Bounds[i] and above Bounds[i-1]; the last, above every bound.
	Bounds  []float64
	Buckets []uint64
	// Note says why the row has no figures.
	Note string
}

// Rows is the change of every histogram between a run's start and end,
// by device and operation. A histogram at the end only counts from zero
// when the start has others (the tracer ran: no such I/O yet); when
// the start has none at all, nothing is known.
func Rows(start, end []fingerprint.IOSize) []Row {
	before := map[[2]string]fingerprint.IOSize{}
	for _, h := range start {
		before[[2]string{h.Device, h.Op}] = h
	}
	var out []Row
	for _, e := range end {
		r := Row{Device: e.Device, Op: e.Op}
		s, ok := before[[2]string{e.Device, e.Op}]
		switch {
		case len(start) == 0:
			r.Note = "no I/O-size histogram at the run's start (io_size collector off, or its tracer not running)"
		case !ok:
			s = fingerprint.IOSize{Device: e.Device, Op: e.Op, Bounds: e.Bounds, Buckets: make([]uint64, len(e.Buckets))}
		}
		if r.Note == "" {
			r.Note = delta(&r, s, e)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Device != out[j].Device {
			return out[i].Device < out[j].Device
		}
		return out[i].Op < out[j].Op
	})
	return out
}

// delta fills r with end - start, or says why it cannot.
func delta(r *Row, s, e fingerprint.IOSize) string {
	if len(s.Bounds) != len(e.Bounds) || len(e.Buckets) != len(e.Bounds) || len(s.Buckets) != len(s.Bounds) {
		return "the histogram's buckets differ between start and end"
	}
	for i := range e.Bounds {
		if s.Bounds[i] != e.Bounds[i] {
			return "the histogram's buckets differ between start and end"
		}
	}
	if e.Count < s.Count || e.Bytes < s.Bytes {
		return "counts went backwards: the exporter restarted during the run"
	}
	r.IOs, r.Bytes, r.Bounds = e.Count-s.Count, e.Bytes-s.Bytes, e.Bounds
	below := uint64(0)
	for i := range e.Bounds {
		if e.Buckets[i] < s.Buckets[i] {
			r.IOs, r.Bytes, r.Bounds = 0, 0, nil
			return "counts went backwards: the exporter restarted during the run"
		}
		cum := e.Buckets[i] - s.Buckets[i]
		r.Buckets = append(r.Buckets, cum-below)
		below = cum
	}
	r.Buckets = append(r.Buckets, r.IOs-below)
	return ""
}

// Header is the table's head, two Markdown lines.
const Header = "| device | op | I/Os | mean size | I/Os by size (bucket's upper bound: share) | note |\n|---|---|---|---|---|---|\n"

// Markdown is the table: Header and one line per row with I/Os or a
// note; "" when there is none.
func Markdown(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		if r.Note == "" && r.IOs == 0 {
			continue // no such I/O during the run
		}
		if b.Len() == 0 {
			b.WriteString(Header)
		}
		if r.Note != "" {
			fmt.Fprintf(&b, "| %s | %s | — | — | — | %s |\n", cell(r.Device), cell(r.Op), cell(r.Note))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |  |\n", cell(r.Device), cell(r.Op), r.IOs, size(r.Bytes/float64(r.IOs)), shares(r))
	}
	return b.String()
}

// shares lists the buckets with I/Os: "16 KiB 80.0%, > 1 MiB 0.1%".
func shares(r Row) string {
	var parts []string
	for i, n := range r.Buckets {
		if n == 0 {
			continue
		}
		label := "> " + size(r.Bounds[len(r.Bounds)-1])
		if i < len(r.Bounds) {
			label = size(r.Bounds[i])
		}
		parts = append(parts, fmt.Sprintf("%s %.1f%%", label, 100*float64(n)/float64(r.IOs)))
	}
	return strings.Join(parts, ", ")
}

// size prints bytes in B, KiB or MiB, with a decimal only when needed.
func size(b float64) string {
	unit, div := "B", 1.0
	switch {
	case b >= 1<<20:
		unit, div = "MiB", 1<<20
	case b >= 1<<10:
		unit, div = "KiB", 1<<10
	}
	v := b / div
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), unit)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

// cell keeps a label from the exporter inside its table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
