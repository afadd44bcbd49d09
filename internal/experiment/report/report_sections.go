package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// The report's sections besides the verdict, the fingerprints and fio's
// (report.go, fio_report.go), in the order Report writes them.

// reportHeader is the title line: when, which device, where.
func reportHeader(b *strings.Builder, p *plan.Plan, st *state.State, out string) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
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
	w(". Output directory `%s`.\n\n", out)
}

// reportRuns is the runs' aggregates, each sweep's peak and every counted
// run.
func reportRuns(b *strings.Builder, p *plan.Plan, runs []state.RunRecord, groups []Group) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## Runs (mean [95%% interval] min–max over repetitions)\n\n")
	w("| run | scenario | threads | n | TPS | tpmC | WA (drive counters, start→end) | p95 ms (max over targets) |\n|---|---|---|---|---|---|---|---|\n")
	for _, g := range groups {
		w("| %s | %s | %s | %d | %s | %s | %s | %s |\n", g.Run, g.Scenario, threadsText(g.Threads), len(g.Runs),
			statsText(g.TPS, 1), statsText(g.TpmC, 0), statsText(g.WA, 3), statsText(g.P95Ms, 2))
	}
	w("\n")
	reportSweeps(b, p, groups)
	w("### Every counted run\n\n| run id | step | attempt | start | duration | TPS | WA | host MiB | NAND MiB | drift start→end |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		w("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %d |\n", r.RunID, r.Step, r.Attempt, r.Start.Format("15:04:05"),
			r.End.Sub(r.Start).Round(time.Second), opt(r.TPS, 1, 1), opt(r.WA, 3, 1), opt(r.HostBytes, 1, 1<<20), opt(r.MediaBytes, 1, 1<<20), len(r.Drift))
	}
	w("\n")
}

// reportSweeps names each sweep's peak throughput and the thread counts
// it cannot be told apart from.
func reportSweeps(b *strings.Builder, p *plan.Plan, groups []Group) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	for _, r := range p.Runs {
		if r.Sweep == nil {
			continue
		}
		th, s, ok := Peak(groups, r.Name)
		if !ok {
			w("Sweep %s: no throughput recorded, no peak.\n\n", r.Name)
			continue
		}
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
	}
}

// reportChecks is the pre-run checks' outcomes.
func reportChecks(b *strings.Builder, checks []state.CheckResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## Pre-run checks\n\n| run | check | result | detail |\n|---|---|---|---|\n")
	for _, c := range checks {
		w("| %s | %s | %s | %s |\n", c.Run, c.Check, strings.ToUpper(c.Status), cell(c.Reason))
	}
	if len(checks) == 0 {
		w("| | (none in the plan) | | |\n")
	}
	w("\n")
}

// reportSteps is every step's status, attempts, time and log.
func reportSteps(b *strings.Builder, items []plan.Item, steps map[string]*state.StepState) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## Steps\n\n| step | phase | status | attempts | took | log |\n|---|---|---|---|---|---|\n")
	for _, it := range items {
		s := steps[it.ID]
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
		if it.Phase == plan.PhaseReport && s.Status == state.StatusStarted {
			status = "writing"
		}
		w("| %s%s | %s | %s | %d | %s | %s |\n", it.ID, flag, it.Phase, status, s.Attempts, took, s.Log)
	}
}
