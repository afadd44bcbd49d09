package compare

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Options select the two runs and the device.
type Options struct {
	Baseline, Candidate string // run ids (walab_loadgen_run_info{run_id})
	Device              string
	From, To            time.Time // where to search for the runs
	LastHours           int       // seed 000 keeps the last 12 non-zero hours
}

// Result is the comparison of two runs on one device.
type Result struct {
	Device    string
	Runs      [2]Run    // baseline, candidate
	Tables    [2][]Hour // hourly tables
	Last      [2][]Hour // their last non-zero hours
	Missing   [2][]Hour // hours of each run without trustworthy figures
	WA        [2]float64
	Reduction float64
}

// Compare finds both runs, builds their hourly tables and the reduction.
func Compare(ctx context.Context, src Source, o Options) (*Result, error) {
	if o.LastHours <= 0 {
		o.LastHours = 12
	}
	res := &Result{Device: o.Device}
	for i, id := range []string{o.Baseline, o.Candidate} {
		run, err := src.FindRun(ctx, id, o.From, o.To)
		if err != nil {
			return nil, err
		}
		table, err := src.Hourly(ctx, run, o.Device)
		if err != nil {
			return nil, err
		}
		res.Runs[i], res.Tables[i] = run, table
		res.Last[i] = LastNonZero(table, o.LastHours)
		res.Missing[i] = MissingHours(table)
		if len(res.Last[i]) == 0 {
			return nil, fmt.Errorf("run %s: no hour with host writes on %s", id, o.Device)
		}
		res.WA[i] = AggregateWA(res.Last[i])
	}
	r, err := Reduction(res.WA[0], res.WA[1])
	if err != nil {
		return nil, err
	}
	res.Reduction = r
	return res, nil
}

// Write prints both tables, the last-hours WA of each run and the reduction.
func (r *Result) Write(w io.Writer, lastHours int) error {
	for i, role := range []string{"baseline", "candidate"} {
		run := r.Runs[i]
		fmt.Fprintf(w, "%s run %s (scenario %s): %s .. %s\n", role, run.ID, run.Scenario,
			run.Start.UTC().Format(time.RFC3339), run.End.UTC().Format(time.RFC3339))
		if err := WriteText(w, r.Tables[i]); err != nil {
			return err
		}
		fmt.Fprintf(w, "last %d non-zero hours (%d..%d): WA %.5f\n", len(r.Last[i]), r.Last[i][0].Hour, r.Last[i][len(r.Last[i])-1].Hour, r.WA[i])
		if m := r.Missing[i]; len(m) > 0 {
			fmt.Fprintf(w, "MISSING: %d of %d hours have no trustworthy NAND/host figures (hours %s); they are not counted, not taken as WA 0\n",
				len(m), len(r.Tables[i]), hourList(m))
		}
		fmt.Fprintln(w)
	}
	if _, err := fmt.Fprintf(w, "WA reduction (baseline - candidate) / baseline: %.2f%%\n", 100*r.Reduction); err != nil {
		return err
	}
	// The baseline's steady WA is the reference WalabWARegression watches.
	_, err := fmt.Fprintf(w, "alerts/config.yml reference_wa for this baseline: {%q: %.3f}\n", r.Device, r.WA[0])
	return err
}

// Incomplete reports whether either run has missing hours.
func (r *Result) Incomplete() bool { return len(r.Missing[0])+len(r.Missing[1]) > 0 }

func hourList(hs []Hour) string {
	var b strings.Builder
	for i, h := range hs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(h.Hour))
	}
	return b.String()
}
