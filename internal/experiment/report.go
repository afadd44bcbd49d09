package experiment

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/walab/walab/internal/fingerprint"
)

// ReportFile is the experiment's report in its output directory.
const ReportFile = "report.md"

// WriteReport writes the report as it stands (also after a failure).
func (e *Executor) WriteReport() error { return e.writeReport() }

func (e *Executor) writeReport() error {
	return writeAtomic(filepath.Join(e.Out, ReportFile), []byte(e.Report()))
}

// Report renders the plan, the checks, every run with its fingerprint, the
// aggregates and the comparison as Markdown.
func (e *Executor) Report() string {
	var b strings.Builder
	p, st := e.Plan, e.state
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Experiment %s\n\n", p.Name)
	w("Started %s", st.Created.Format(time.RFC3339))
	if st.Finished != nil {
		w(", finished %s", st.Finished.Format(time.RFC3339))
	}
	if p.Device != "" {
		w(". Device `%s`", p.Device)
	}
	if p.Exporter != "" {
		w(" (exporter %s)", p.Exporter)
	}
	w(". Output directory `%s`.\n\n", e.Out)

	groups := Aggregate(p, st.Runs)
	e.reportVerdict(&b, groups)

	w("## Runs (mean [95%% interval] min–max over repetitions)\n\n")
	w("| run | scenario | threads | n | TPS | tpmC | WA (drive counters, start→end) | p95 ms (max over targets) |\n|---|---|---|---|---|---|---|---|\n")
	for _, g := range groups {
		w("| %s | %s | %s | %d | %s | %s | %s | %s |\n", g.Run, g.Scenario, threadsText(g.Threads), len(g.Runs),
			statsText(g.TPS, 1), statsText(g.TpmC, 0), statsText(g.WA, 3), statsText(g.P95Ms, 2))
	}
	w("\n")
	for _, r := range p.Runs {
		if r.Sweep == nil {
			continue
		}
		if th, s, ok := Peak(groups, r.Name); ok {
			w("Sweep %s: peak throughput at **%d threads**, %.1f TPS (mean of %d)", r.Name, th, s.Mean, s.N)
			var close []string
			for _, g := range groups {
				if g.Run == r.Name && g.Threads != th && g.TPS != nil && overlaps(s, *g.TPS) {
					close = append(close, fmt.Sprint(g.Threads))
				}
			}
			if len(close) > 0 {
				w("; its 95%% interval overlaps that of %s threads: the peak is not clearly above them", strings.Join(close, ", "))
			}
			w(".\n\n")
		} else {
			w("Sweep %s: no throughput recorded, no peak.\n\n", r.Name)
		}
	}

	w("### Every counted run\n\n| run id | step | attempt | start | duration | TPS | WA | host MiB | NAND MiB | drift start→end |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range st.Runs {
		w("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %d |\n", r.RunID, r.Step, r.Attempt, r.Start.Format("15:04:05"),
			r.End.Sub(r.Start).Round(time.Second), opt(r.TPS, 1, 1), opt(r.WA, 3, 1), opt(r.HostBytes, 1, 1<<20), opt(r.MediaBytes, 1, 1<<20), len(r.Drift))
	}
	w("\n")

	w("## Pre-run checks\n\n| run | check | result | detail |\n|---|---|---|---|\n")
	for _, c := range st.Checks {
		w("| %s | %s | %s | %s |\n", c.Run, c.Check, strings.ToUpper(c.Status), cell(c.Reason))
	}
	if len(st.Checks) == 0 {
		w("| | (none in the plan) | | |\n")
	}
	w("\n")

	e.reportFingerprints(&b)

	w("## Steps\n\n| step | phase | status | attempts | took | log |\n|---|---|---|---|---|---|\n")
	for _, it := range e.items {
		s := st.Steps[it.ID]
		if s == nil {
			w("| %s | %s | not run | 0 | | |\n", it.ID, it.Phase)
			continue
		}
		took := ""
		if !s.End.IsZero() {
			took = s.End.Sub(s.Start).Round(time.Millisecond).String()
		}
		flag := ""
		if it.Destructive {
			flag = " (destructive)"
		}
		status := s.Status
		if it.Phase == PhaseReport && s.Status == StatusStarted {
			status = "writing"
		}
		w("| %s%s | %s | %s | %d | %s | %s |\n", it.ID, flag, it.Phase, status, s.Attempts, took, s.Log)
	}
	w("\n## Plan\n\n```yaml\n%s```\n", strings.TrimRight(string(e.PlanBytes), "\n")+"\n")
	return b.String()
}

func (e *Executor) reportVerdict(b *strings.Builder, groups []Group) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	c := e.Plan.Compare
	if c == nil {
		return
	}
	w("## Comparison: %s (baseline) vs %s (candidate)\n\n", c.Baseline, c.Candidate)
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
		if ga.WA != nil && gb.WA != nil && ga.WA.Mean > 0 {
			w("- WA over whole runs (drive counters at start and end): %.3f → %.3f, **%+.1f%%** (negative: streams wrote less to NAND per host byte).\n",
				ga.WA.Mean, gb.WA.Mean, 100*(gb.WA.Mean/ga.WA.Mean-1))
		} else {
			w("- WA over whole runs: not known (a drive counter is missing in a run's fingerprint).\n")
		}
		e.reportRoundsThroughput(b)
		if ga.TPS != nil && gb.TPS != nil && ga.TPS.Mean > 0 {
			w("- Throughput over whole runs (loadgen's summary): %.1f → %.1f TPS, %+.1f%%", ga.TPS.Mean, gb.TPS.Mean, 100*(gb.TPS.Mean/ga.TPS.Mean-1))
			if ga.TpmC != nil && gb.TpmC != nil && ga.TpmC.Mean > 0 {
				w("; tpmC %.0f → %.0f, %+.1f%%", ga.TpmC.Mean, gb.TpmC.Mean, 100*(gb.TpmC.Mean/ga.TpmC.Mean-1))
			}
			w(".\n")
		} else {
			w("- Throughput: not known (no loadgen result for a run).\n")
		}
		w("- These whole-run figures are not the verdict: they include every round from the first transaction to the last (warm-up, the run's edges), the verdict only its compared rounds; walab compare's verdict follows.\n\n")
	}
	cr := e.state.Compare
	switch {
	case cr == nil:
		w("walab compare has not run yet.\n\n")
	case cr.Error != "":
		w("**walab compare gave no verdict:** %s\n\n", cr.Error)
	}
	if cr != nil && cr.Text != "" {
		w("```\n%s```\n\n", strings.TrimRight(cr.Text, "\n")+"\n")
	}
	if cr != nil {
		w("Differences between the two runs' start fingerprints (the treatment should be among them, nothing else):\n\n")
		if len(cr.Drift) == 0 {
			w("- none\n")
		}
		for _, d := range cr.Drift {
			w("- `%s`\n", d)
		}
		w("\n")
	}
}

func (e *Executor) reportFingerprints(b *strings.Builder) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## Fingerprints\n\nTaken at every run's start and end (`runs/<run id>/fingerprint-{start,end}.json`). The first run's start is shown in full; every other run lists only what differs from it.\n\n")
	var first *fingerprint.Fingerprint
	for i := range e.state.Runs {
		r := &e.state.Runs[i]
		fa, err := e.readFingerprint(r, "start")
		if err != nil {
			w("### %s\n\nfingerprint not readable: %v\n\n", r.RunID, err)
			continue
		}
		fb, _ := e.readFingerprint(r, "end")
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
				w("Same conditions as %s.\n", e.state.Runs[0].RunID)
			}
			for _, ch := range d {
				w("- vs %s: `%s`\n", e.state.Runs[0].RunID, ch)
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
