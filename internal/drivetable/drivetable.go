// Package drivetable is seed 001's per-drive table: for every drive a run's
// fingerprints name (every NVMe drive the exporter reports, the members of
// an array among them), its host and NAND bytes written at the run's start
// and end, what it wrote in between and its WA. Plain values in, Markdown
// rows out: the experiment's report prints them under each run.
//
// A figure that is not known is absent ("—"), never 0: a counter the
// exporter did not report, a drive present at one end only, a drive whose
// serial or NAND source changed during the run, or a counter that went
// backwards.
package drivetable

import (
	"fmt"
	"sort"
	"strings"

	"github.com/walab/walab/internal/fingerprint"
)

// GiB is the table's unit: seed 001 prints "GB" written as nvme-cli's
// vendor log gives it, in GiB.
const GiB = 1 << 30

// Row is one drive between a run's start and end fingerprints.
type Row struct {
	Device, Serial string
	Arrays         []string // the md/dm arrays the drive's namespaces are under
	// The counters at the start and the end; nil where not reported.
	HostStart, HostEnd, NANDStart, NANDEnd *float64
	// Why the deltas are not known although counters are there.
	Note string
}

// Rows pairs the drives of a run's start and end fingerprints by device,
// in device order. A drive at one end only has that end's counters and a
// note.
func Rows(start, end []fingerprint.Drive) []Row {
	starts, ends := byDevice(start), byDevice(end)
	var out []Row
	for dev := range unionKeys(starts, ends) {
		s, inStart := starts[dev]
		e, inEnd := ends[dev]
		first := s
		if !inStart {
			first = e
		}
		r := Row{Device: dev, Serial: first.Serial, Arrays: first.Arrays}
		if inStart {
			r.HostStart, r.NANDStart = s.HostWrittenBytes, s.MediaWrittenBytes
		}
		if inEnd {
			r.HostEnd, r.NANDEnd = e.HostWrittenBytes, e.MediaWrittenBytes
		}
		switch {
		case !inStart:
			r.Note = "not in the start fingerprint"
		case !inEnd:
			r.Note = "not in the end fingerprint"
		case s.Serial != e.Serial:
			r.Note = fmt.Sprintf("serial changed (%s → %s): another drive", s.Serial, e.Serial)
		case s.Source != e.Source:
			r.Note = fmt.Sprintf("NAND source changed (%s → %s)", s.Source, e.Source)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	return out
}

func byDevice(ds []fingerprint.Drive) map[string]fingerprint.Drive {
	m := make(map[string]fingerprint.Drive, len(ds))
	for _, d := range ds {
		m[d.Device] = d
	}
	return m
}

func unionKeys(a, b map[string]fingerprint.Drive) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// HostBytes is what the host wrote to the drive during the run; nil when
// not known.
func (r Row) HostBytes() *float64 { return r.delta(r.HostStart, r.HostEnd) }

// NANDBytes is what the drive wrote to NAND during the run; nil when not
// known.
func (r Row) NANDBytes() *float64 { return r.delta(r.NANDStart, r.NANDEnd) }

func (r Row) delta(a, b *float64) *float64 {
	if r.Note != "" {
		return nil
	}
	return fingerprint.Delta(a, b)
}

// WA is NAND / host bytes over the run; nil when either is unknown or the
// host wrote nothing to the drive.
func (r Row) WA() *float64 {
	h, n := r.HostBytes(), r.NANDBytes()
	if h == nil || n == nil || *h <= 0 {
		return nil
	}
	wa := *n / *h
	return &wa
}

// Header is the table's head, two Markdown lines.
const Header = "| drive | serial | under | host GiB start | host GiB end | host GiB written | NAND GiB start | NAND GiB end | NAND GiB written | WA | note |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|\n"

// Markdown is the table: Header and one line per row; "" without rows.
func Markdown(rows []Row) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(Header)
	for _, r := range rows {
		under := "—"
		if len(r.Arrays) > 0 {
			under = strings.Join(r.Arrays, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			cell(r.Device), cell(r.Serial), cell(under),
			gib(r.HostStart), gib(r.HostEnd), gib(r.HostBytes()),
			gib(r.NANDStart), gib(r.NANDEnd), gib(r.NANDBytes()), num(r.WA(), 3), cell(r.Note))
	}
	return b.String()
}

func gib(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *v/GiB)
}

func num(v *float64, prec int) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.*f", prec, *v)
}

// cell keeps a label from the exporter inside its table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
