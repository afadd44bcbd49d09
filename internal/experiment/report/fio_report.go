package report

import (
	"fmt"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fio"
)

// reportFio writes the fio runs: fio's figures beside the block layer's
// view of the same span, and the sweep's peak IOPS.
func (in *Input) reportFio(b *strings.Builder) {
	var recs []state.RunRecord
	for _, r := range in.State.Runs {
		if r.Fio != nil {
			recs = append(recs, r)
		}
	}
	if len(recs) == 0 {
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## fio runs\n\nfio's figures from its JSON report (`runs/<run id>/%s`), summed over jobs; completion latency (clat) is the highest over the jobs (exact with group_reporting, one group). ", plan.FioOutput)
	w("Beside them the block layer's view of the device under fio's files over the same span: iostat -x's arithmetic over /proc/diskstats, read by walab just before fio started and after it ended.\n\n")
	w("| run id | numjobs | read IOPS | write IOPS | read MiB/s | write MiB/s | read clat p50/p99/p99.9 ms | write clat p50/p99/p99.9 ms | job errors | steady state | device | r/s | w/s | rMiB/s | wMiB/s | r_await ms | w_await ms | %%util |\n")
	w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range recs {
		f, t := r.Fio, r.Fio.Total
		w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", r.RunID, numjobsText(r.Threads), apart(f, t.ReadIOPS, 0), apart(f, t.WriteIOPS, 0),
			apart(f, t.ReadBytesPerSecond/(1<<20), 2), apart(f, t.WriteBytesPerSecond/(1<<20), 2), clatText(f.Jobs, readDir), clatText(f.Jobs, writeDir), jobErrorsText(t), steadyText(f))
		if len(f.Block) == 0 {
			w(" (not found) | — | — | — | — | — | — | — |\n")
			continue
		}
		for i, s := range f.Block {
			if i > 0 {
				w("\n| | | | | | | | | | |")
			}
			w(" %s | %.0f | %.0f | %.2f | %.2f | %s | %s | %.1f |", s.Device, s.ReadsPerSec, s.WritesPerSec, s.ReadBytesPerSec/(1<<20),
				s.WriteBytesPerSec/(1<<20), opt(s.ReadAwaitMs, 3, 1), opt(s.WriteAwaitMs, 3, 1), 100*s.Util)
		}
		w("\n")
	}
	w("\n")
	for _, r := range recs {
		if t := r.Fio.Total; t.MixedOnlyJobs > 0 {
			w("%s: fio reported reads and writes together in %d of %d jobs (--unified_rw_reporting=mixed), in neither column above: over every job %.0f IOPS, %.2f MiB/s; mixed clat p50/p99/p99.9 %s ms.\n\n",
				r.RunID, t.MixedOnlyJobs, len(r.Fio.Jobs), r.Fio.IOPS(), t.BytesPerSecond/(1<<20), clatText(r.Fio.Jobs, mixedDir))
		}
	}
	in.reportFioPeak(b)
}

// jobErrorsText: the jobs that ended with an errno or went on after I/O
// errors, and how many I/O errors (continue_on_error's total_err).
func jobErrorsText(t fio.Total) string {
	if t.IOErrors > 0 {
		return fmt.Sprintf("%d (%d I/O errors, continue_on_error)", t.JobsWithError, t.IOErrors)
	}
	return fmt.Sprint(t.JobsWithError)
}

// reportFioPeak names a swept fio run's numjobs of highest mean IOPS
// (read + write), seed 002's "concurrency of maximum performance".
func (in *Input) reportFioPeak(b *strings.Builder) {
	for _, r := range in.Plan.Runs {
		if r.Fio == "" || r.Sweep == nil {
			continue
		}
		best, bestN := Stats{}, 0
		for _, n := range r.Sweep.Threads {
			var vals []float64
			for _, rec := range in.State.Runs {
				if rec.Run == r.Name && rec.Threads == n && rec.Fio != nil {
					vals = append(vals, rec.Fio.IOPS())
				}
			}
			if s, ok := Summarise(vals); ok && (bestN == 0 || s.Mean > best.Mean) {
				best, bestN = s, n
			}
		}
		if bestN == 0 {
			fmt.Fprintf(b, "Sweep %s: no fio run counted, no peak.\n\n", r.Name)
			continue
		}
		fmt.Fprintf(b, "Sweep %s: peak IOPS at **numjobs %d**, %.0f IOPS (read + write + trim, or mixed; mean of %d).\n\n", r.Name, bestN, best.Mean, best.N)
	}
}

// numjobsText is the sweep's numjobs, or "(line)": the line's own.
func numjobsText(n int) string {
	if n == 0 {
		return "(line)"
	}
	return fmt.Sprint(n)
}

func readDir(j fio.Job) fio.Dir  { return j.Read }
func writeDir(j fio.Job) fio.Dir { return j.Write }

// mixedDir is a job's mixed figures (--unified_rw_reporting); none when
// fio reported directions apart only.
func mixedDir(j fio.Job) fio.Dir {
	if j.Mixed == nil {
		return fio.Dir{}
	}
	return *j.Mixed
}

// apart is a read or write figure, or "—" when every job reported read
// and write only together (mixed): fio printed no such figure.
func apart(f *state.FioRecord, v float64, prec int) string {
	if f.Total.MixedOnlyJobs == len(f.Jobs) {
		return "—"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// clatText is "p50/p99/p99.9" in milliseconds, each the highest over the
// jobs that report it; "—" when no job did.
func clatText(jobs []fio.Job, dir func(fio.Job) fio.Dir) string {
	var parts []string
	any := false
	for _, p := range []float64{50, 99, 99.9} {
		var worst *float64
		for _, j := range jobs {
			if ns, ok := dir(j).Clat(p); ok && (worst == nil || ns > *worst) {
				v := ns
				worst = &v
			}
		}
		any = any || worst != nil
		parts = append(parts, opt(worst, 3, 1e6))
	}
	if !any {
		return "—"
	}
	return strings.Join(parts, " / ")
}

func steadyText(f *state.FioRecord) string {
	if f.Total.SteadyJobs == 0 {
		return "—"
	}
	var crit []string
	for _, j := range f.Jobs {
		if j.Steady != nil {
			crit = append(crit, fmt.Sprintf("%s %s over %ds", j.Steady.Criterion, j.Steady.Measured, j.Steady.DurationS))
		}
	}
	return fmt.Sprintf("%d of %d jobs attained (%s)", f.Total.SteadyAttained, f.Total.SteadyJobs, cell(strings.Join(crit, "; ")))
}

// FioBeside is the two fio runs' figures from their run records, for the
// compare phase's text beside walab compare's performance table.
func FioBeside(base, cand *state.RunRecord) string {
	if base.Fio == nil || cand.Fio == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fio over the whole runs (run records, %s vs %s):\n%-32s %14s %14s %9s\n", base.RunID, cand.RunID, "", "baseline", "candidate", "change")
	tb, tc := base.Fio.Total, cand.Fio.Total
	rows := []struct {
		name string
		b, c float64
	}{
		{"read IOPS", tb.ReadIOPS, tc.ReadIOPS},
		{"write IOPS", tb.WriteIOPS, tc.WriteIOPS},
		{"read MiB/s", tb.ReadBytesPerSecond / (1 << 20), tc.ReadBytesPerSecond / (1 << 20)},
		{"write MiB/s", tb.WriteBytesPerSecond / (1 << 20), tc.WriteBytesPerSecond / (1 << 20)},
	}
	if tb.MixedOnlyJobs > 0 || tc.MixedOnlyJobs > 0 {
		rows = append(rows, struct {
			name string
			b, c float64
		}{"IOPS (every direction)", base.Fio.IOPS(), cand.Fio.IOPS()})
	}
	for _, r := range rows {
		if r.b == 0 && r.c == 0 {
			continue
		}
		change := "-"
		if r.b != 0 {
			change = fmt.Sprintf("%+.1f%%", 100*(r.c-r.b)/r.b)
		}
		fmt.Fprintf(&b, "%-32s %14.2f %14.2f %9s\n", r.name, r.b, r.c, change)
	}
	for _, d := range []struct {
		name string
		dir  func(fio.Job) fio.Dir
	}{{"read", readDir}, {"write", writeDir}, {"mixed", mixedDir}} {
		cb, cc := clatText(base.Fio.Jobs, d.dir), clatText(cand.Fio.Jobs, d.dir)
		if cb != "—" || cc != "—" {
			fmt.Fprintf(&b, "%-32s %s  vs  %s\n", d.name+" clat p50/p99/p99.9 (ms)", cb, cc)
		}
	}
	return b.String() + "\n"
}
