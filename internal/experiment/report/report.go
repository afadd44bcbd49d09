// Package report owns the experiment's report (report.md): a function of
// plain values (Input: the plan, the journal, the steps), with the
// aggregates over repetitions and thread sweeps it shows (aggregate.go),
// the fio runs' tables and the throughput intervals between repetitions.
// It runs nothing and reads only the runs' fingerprint files.
package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
)

// File is the experiment's report in its output directory.
const File = "report.md"

// Input is what the report is made of, as plain values: the plan and its
// text, the journal, the plan's flattened steps, and the experiment
// directory the runs' fingerprints are read from.
type Input struct {
	Plan     *plan.Plan
	PlanText []byte // the plan as written
	State    *state.State
	Items    []plan.Item
	Out      string
}

// Markdown renders the plan, the checks, every run with its fingerprint,
// the aggregates and the comparison as Markdown. Secrets are the caller's
// to hide (the executor redacts what it writes).
func Markdown(in Input) string {
	var b strings.Builder
	p, st := in.Plan, in.State
	groups := Aggregate(p, st.Runs)
	reportHeader(&b, p, st, in.Out)
	in.reportVerdict(&b, groups)
	reportRuns(&b, p, st.Runs, groups)
	in.reportFio(&b)
	in.reportProfiles(&b)
	reportChecks(&b, st.Checks)
	in.reportFingerprints(&b)
	reportSteps(&b, in.Items, st.Steps)
	fmt.Fprintf(&b, "\n## Plan\n\n%s", fenced(string(in.PlanText), "yaml"))
	return b.String()
}

func (in *Input) reportVerdict(b *strings.Builder, groups []Group) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	c := in.Plan.Compare
	if c == nil {
		return
	}
	w("## Comparison: %s (baseline) vs %s (candidate)\n\n", c.Baseline, c.Candidate)
	reportUntilSteady(b, in.State.Runs)
	// The drive-counter figures, over whole runs, all repetitions.
	var ga, gb *Group
	for i := range groups {
		if groups[i].Run == c.Baseline && ga == nil {
			ga = &groups[i]
		}
		if groups[i].Run == c.Candidate && gb == nil {
			gb = &groups[i]
		}
	}
	if ga != nil && gb != nil {
		valid := in.State.Compare != nil && in.State.Compare.Valid != nil && *in.State.Compare.Valid
		switch {
		case ga.WA != nil && gb.WA != nil && !valid:
			// compare's rule: no reduction from a comparison it does not trust.
			w("- WA over whole runs (drive counters at start and end): %.3f → %.3f; no reduction is given: walab compare did not find the comparison VALID.\n", ga.WA.Mean, gb.WA.Mean)
		case ga.WA != nil && gb.WA != nil && ga.WA.Mean > 0:
			w("- WA over whole runs (drive counters at start and end): %.3f → %.3f, **%+.1f%%** (negative: streams wrote less to NAND per host byte).\n",
				ga.WA.Mean, gb.WA.Mean, 100*(gb.WA.Mean/ga.WA.Mean-1))
		default:
			w("- WA over whole runs: not known (a drive counter is missing in a run's fingerprint).\n")
		}
		in.reportRoundsThroughput(b)
		reportWholeRunThroughput(b, ga, gb)
		w("- These whole-run figures are not the verdict: they include every round from the first transaction to the last (warm-up, the run's edges), the verdict only its compared rounds; walab compare's verdict follows.\n\n")
	}
	cr := in.State.Compare
	switch {
	case cr == nil:
		w("walab compare has not run yet.\n\n")
	case cr.Error != "":
		w("**walab compare gave no verdict:** %s\n\n", cr.Error)
	}
	if cr != nil && cr.Text != "" {
		w("%s\n", fenced(cr.Text, ""))
	}
	if cr != nil {
		w("Differences between the two runs' start fingerprints (the treatment should be among them, nothing else):\n\n")
		if len(cr.Drift) == 0 {
			w("- none\n")
		}
		for _, d := range cr.Drift {
			w("- %s\n", codeSpan(d))
		}
		w("\n")
	}
}

func (in *Input) reportFingerprints(b *strings.Builder) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## Fingerprints\n\nTaken at every run's start and end (`runs/<run id>/fingerprint-{start,end}.json`). The first run's start is shown in full; every other run lists only what differs from it.\n\n")
	var first *fingerprint.Fingerprint
	for i := range in.State.Runs {
		r := &in.State.Runs[i]
		fa, err := state.ReadFingerprint(in.Out, r, "start")
		if err != nil {
			w("### %s\n\nfingerprint not readable: %v\n\n", r.RunID, err)
			continue
		}
		fb, _ := state.ReadFingerprint(in.Out, r, "end")
		w("### %s\n\n", r.RunID)
		if first == nil {
			first = fa
			flat := fa.Flatten()
			keys := make([]string, 0, len(flat))
			for k := range flat {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			w("| key | value |\n|---|---|\n")
			for _, k := range keys {
				w("| %s | %s |\n", k, cell(flat[k]))
			}
		} else {
			d := fingerprint.Diff(first, fa)
			if len(d) == 0 {
				w("Same conditions as %s.\n", in.State.Runs[0].RunID)
			}
			for _, ch := range d {
				w("- vs %s: `%s`\n", in.State.Runs[0].RunID, ch)
			}
		}
		if fb != nil {
			for _, ch := range fingerprint.Diff(fa, fb) {
				w("- changed during the run: `%s`\n", ch)
			}
		}
		for _, msg := range fa.Errors {
			w("- not recorded: %s\n", msg)
		}
		reportPerDevice(b, fa, fb)
		w("\n")
	}
}

// overlaps reports whether two means' intervals overlap (or either has no
// interval: then they cannot be told apart).
func overlaps(a, b Stats) bool {
	if math.IsNaN(a.Lo) || math.IsNaN(b.Lo) {
		return true
	}
	return a.Lo <= b.Hi && b.Lo <= a.Hi
}

func threadsText(n int) string {
	if n == 0 {
		return "(args)"
	}
	return fmt.Sprint(n)
}

func statsText(s *Stats, prec int) string {
	if s == nil {
		return "—"
	}
	if s.N == 1 || math.IsNaN(s.Lo) {
		return fmt.Sprintf("%.*f", prec, s.Mean)
	}
	return fmt.Sprintf("%.*f [%.*f, %.*f] %.*f–%.*f", prec, s.Mean, prec, s.Lo, prec, s.Hi, prec, s.Min, prec, s.Max)
}

func opt(v *float64, prec int, div float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.*f", prec, *v/div)
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
