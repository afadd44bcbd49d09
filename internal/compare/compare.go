package compare

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// Selection of the compared rounds of each run.
const (
	SelectSteady      = "steady"       // the last N complete rounds from the first steady window on (default)
	SelectLastNonZero = "last-nonzero" // seed 000: the last N rounds with host writes
)

// Options select the two runs, the device and how they are judged.
type Options struct {
	Baseline, Candidate string // run ids (walab_loadgen_run_info{run_id})
	// BaselineRange and CandidateRange, when set, give a run as a time
	// range instead of a run id (load driven by another tool).
	BaselineRange, CandidateRange *[2]time.Time
	Device                        string
	// Array, when set, compares an md/dm array's chain instead of a device
	// (ArrayTable): WA is its leaves' NAND bytes per array byte.
	Array     string
	From, To  time.Time     // where to search for the runs
	LastHours int           // rounds compared per run; seed 000 keeps 12
	Round     time.Duration // one row of the table; default 1h (a simulated hour is 1m)
	Select    string        // SelectSteady (default) or SelectLastNonZero
	Steady    Steady        // default SNIA
	Checks    CheckOptions
	Interval  BatchMeans
}

// Result is the comparison of two runs on one device.
type Result struct {
	Device    string
	Array     string `json:",omitempty"`
	Round     time.Duration
	Runs      [2]Run    // baseline, candidate
	Tables    [2][]Hour // per-round tables
	Last      [2][]Hour // the compared rounds of each run: WA's
	Missing   [2][]Hour // rounds of each run without trustworthy figures
	SteadyAt  [2]int    // round number steady state was first reached; 0: never
	Facts     [2]RunFacts
	WA        [2]float64
	Reduction float64
	Verdict   Verdict
	Warnings  []string `json:",omitempty"` // the store's warnings (partial answers): NOT VALID

	// ThroughputSteady is where each run's throughput settled (SelectSteady).
	ThroughputSteady [2]ThroughputSteady
	// Perf are the rounds the performance figures (throughput, tpmC,
	// latency) come from: the compared rounds from the first steady
	// throughput window on (SelectSteady), else Last. A suffix of Last.
	Perf [2][]Hour

	steadyName string
}

// Compare finds both runs, builds their tables, selects the compared
// rounds, reads what else Prometheus knows about the runs and judges the
// comparison.
func Compare(ctx context.Context, src Source, o Options) (*Result, error) {
	o = o.withDefaults()
	if o.Select != SelectSteady && o.Select != SelectLastNonZero {
		return nil, fmt.Errorf("selection %q: want %s or %s", o.Select, SelectSteady, SelectLastNonZero)
	}
	if err := o.Steady.Validate(); err != nil {
		return nil, err
	}
	answers := &warnAPI{API: src.API}
	src.API = answers
	res := &Result{Device: o.Device, Array: o.Array, Round: o.Round, steadyName: "SNIA"}
	if o.Steady.Method != "" {
		res.steadyName = "fio " + o.Steady.Method
	}
	ranges := [2]*[2]time.Time{o.BaselineRange, o.CandidateRange}
	for i, id := range []string{o.Baseline, o.Candidate} {
		var run Run
		if r := ranges[i]; r != nil {
			if !r[1].After(r[0]) {
				return nil, fmt.Errorf("%s range %s..%s: the end must be after the start", roles[i], r[0].Format(time.RFC3339), r[1].Format(time.RFC3339))
			}
			run = Run{ID: roles[i] + "-range", Scenario: "range", Start: r[0].UTC(), End: r[1].UTC()}
		} else {
			var err error
			if run, err = src.FindRun(ctx, id, o.From, o.To); err != nil {
				return nil, err
			}
		}
		table, devices, err := src.tableOf(ctx, run, o)
		if err != nil {
			return nil, err
		}
		res.Runs[i], res.Tables[i] = run, table
		res.Missing[i] = MissingHours(table)
		from := 0
		if k := o.Steady.From(table); k >= 0 {
			res.SteadyAt[i] = table[k].Hour
			if o.Select == SelectSteady {
				from = k
			}
		}
		res.Last[i] = LastNonZero(table[from:], o.LastHours)
		if len(res.Last[i]) == 0 {
			return nil, fmt.Errorf("run %s: no round with host writes on %s", run.ID, o.subject())
		}
		res.Perf[i] = res.Last[i]
		if o.Select == SelectSteady {
			if res.Perf[i], res.ThroughputSteady[i], err = src.selectSteadyThroughput(ctx, run, table[from:], o); err != nil {
				return nil, err
			}
		}
		res.WA[i] = AggregateWA(res.Last[i])
		f, err := src.Facts(ctx, run, devices, res.Last[i], res.Perf[i], o.Round)
		if err != nil {
			return nil, err
		}
		if o.Array != "" {
			if f.RAIDTheory, err = src.arrayTheory(ctx, run, o.Array); err != nil {
				return nil, err
			}
		}
		res.Facts[i] = f
	}
	r, err := Reduction(res.WA[0], res.WA[1])
	if err != nil {
		return nil, err
	}
	res.Reduction = r
	res.Warnings = answers.warnings()
	res.Verdict = judge(res, o)
	return res, nil
}

var roles = [2]string{"baseline", "candidate"}

// subject names what is compared: the device, or the array.
func (o Options) subject() string {
	if o.Array != "" {
		return "array " + o.Array
	}
	return o.Device
}

// tableOf builds a run's table and names the drives whose facts count.
func (s Source) tableOf(ctx context.Context, run Run, o Options) ([]Hour, []string, error) {
	if o.Array == "" {
		t, err := s.Table(ctx, run, o.Device, o.Round)
		return t, []string{o.Device}, err
	}
	t, err := s.ArrayTable(ctx, run, o.Array, o.Round)
	if err != nil {
		return nil, nil, err
	}
	ctrls, err := s.ArrayControllers(ctx, run, o.Array)
	return t, ctrls, err
}

// arrayTheory reads the array's full-stripe WA at the run's end.
func (s Source) arrayTheory(ctx context.Context, run Run, array string) (*float64, error) {
	res, _, _, err := s.API.Query(ctx, fmt.Sprintf(`max(last_over_time(`+promql.MDTheoreticalWA+`{device=%q}[%s]))`, array, model.Duration(max(run.End.Sub(run.Start), time.Minute))), run.End)
	if err != nil {
		return nil, fmt.Errorf("array %s: %w", array, err)
	}
	if v, ok := res.(model.Vector); ok && len(v) > 0 && nonFinite(figure{"theory", float64(v[0].Value)}) == "" {
		x := float64(v[0].Value)
		return &x, nil
	}
	return nil, nil
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
		fmt.Fprintf(w, "last %d non-zero %ss (%d..%d): WA %.5f\n", len(r.Last[i]), unit, r.Last[i][0].Hour, r.Last[i][len(r.Last[i])-1].Hour, r.WA[i])
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

// Incomplete reports whether either run has missing rounds.
func (r *Result) Incomplete() bool { return len(r.Missing[0])+len(r.Missing[1]) > 0 }

func roundName(d time.Duration) string {
	if d == time.Hour {
		return "hour"
	}
	return "round"
}

// roundLength names a round that is not an hour: ", rounds of 10s".
func roundLength(d time.Duration) string {
	if roundName(d) == "hour" {
		return ""
	}
	return ", rounds of " + d.String()
}

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

// WriteJSON writes every figure and check of the comparison.
func (r *Result) WriteJSON(w io.Writer) error {
	type run struct {
		Run
		SteadyAt int      `json:"steady_at"` // 0: never
		Table    []Hour   `json:"table"`
		Compared []int    `json:"compared"`
		WA       *float64 `json:"wa"` // null: not a finite number (non_finite)
		Facts    RunFacts `json:"facts"`

		ThroughputSteady ThroughputSteady `json:"throughput_steady"`
		// PerfCompared are the rounds the performance figures come from.
		PerfCompared []int `json:"performance_compared"`
	}
	out := struct {
		Device       string   `json:"device"`
		Array        string   `json:"array,omitempty"`
		RoundSeconds float64  `json:"round_seconds"`
		Verdict      Verdict  `json:"verdict"`
		Reduction    *float64 `json:"wa_reduction"`
		Baseline     run      `json:"baseline"`
		Candidate    run      `json:"candidate"`
		// NonFinite names each figure given as null because it is not a
		// finite number, with its value ("baseline.wa: +Inf").
		NonFinite []string `json:"non_finite,omitempty"`
	}{Device: r.Device, Array: r.Array, RoundSeconds: r.Round.Seconds(), Verdict: r.Verdict}
	out.Reduction = nullable(r.Reduction, "wa_reduction", &out.NonFinite)
	for _, iv := range []struct {
		name string
		iv   Interval
	}{{"wa_change", r.Verdict.WA}, {"throughput_change", r.Verdict.Throughput}, {"tpmc_change", r.Verdict.TpmC}, {"p95_change", r.Verdict.P95}, {"p99_change", r.Verdict.P99}} {
		for _, b := range []struct {
			name string
			x    float64
		}{{"Est", iv.iv.Est}, {"Lo", iv.iv.Lo}, {"Hi", iv.iv.Hi}} {
			nullable(b.x, "verdict."+iv.name+"."+b.name, &out.NonFinite) // Interval.MarshalJSON gives it as null
		}
	}
	for i, dst := range []*run{&out.Baseline, &out.Candidate} {
		*dst = run{Run: r.Runs[i], SteadyAt: r.SteadyAt[i], ThroughputSteady: r.ThroughputSteady[i], Table: r.Tables[i],
			WA: nullable(r.WA[i], roles[i]+".wa", &out.NonFinite), Facts: finiteFacts(r.Facts[i], roles[i]+".facts", &out.NonFinite)}
		for _, h := range r.Last[i] {
			dst.Compared = append(dst.Compared, h.Hour)
		}
		for _, h := range r.Perf[i] {
			dst.PerfCompared = append(dst.PerfCompared, h.Hour)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
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

// writePerformance prints the performance side over the compared rounds:
// throughput, latency and the block layer of each run, and the change.
// A figure a run lacks is "-", never 0.
func (r *Result) writePerformance(w io.Writer) {
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
	v := r.Verdict
	txn := "transactions/s"
	switch {
	case b.TxnSource == TxnServer && c.TxnSource == TxnServer:
		txn = "transactions/s (server COMMITs)"
	case b.TxnSource != "" && c.TxnSource != "" && b.TxnSource != c.TxnSource:
		txn = fmt.Sprintf("transactions/s (%s vs %s)", b.TxnSource, c.TxnSource)
	}
	rows := []struct {
		name   string
		b, c   *float64
		format string
		ci     *Interval // the change's 95% interval, when the rounds give one
	}{
		{txn, sum(b.Txn), sum(c.Txn), "%.2f", &v.Throughput},
		{"New-Orders/s (tpmC/60)", sum(b.NewOrder), sum(c.NewOrder), "%.2f", &v.TpmC},
		{"latency p95 (ms)", scaled(b.P95, 1000), scaled(c.P95, 1000), "%.2f", &v.P95},
		{"latency p99 (ms)", scaled(b.P99, 1000), scaled(c.P99, 1000), "%.2f", &v.P99},
		{"block w/s", b.Block.WritesPerSec, c.Block.WritesPerSec, "%.1f", nil},
		{"block wMB/s", scaled(b.Block.WriteBytesPerSec, 1.0/MiB), scaled(c.Block.WriteBytesPerSec, 1.0/MiB), "%.2f", nil},
		{"block w_await (ms)", scaled(b.Block.WriteAwaitSec, 1000), scaled(c.Block.WriteAwaitSec, 1000), "%.3f", nil},
		{"block %util", scaled(b.Block.Util, 100), scaled(c.Block.Util, 100), "%.1f", nil},
	}
	any := false
	for _, row := range rows {
		any = any || row.b != nil || row.c != nil
	}
	if !any {
		return
	}
	fmt.Fprintf(w, "performance over the compared %ss%s:\n%-32s %14s %14s %9s  %s\n", roundName(r.Round), r.perfSpan(), "", "baseline", "candidate", "change", "95% interval")
	cell := func(x *float64, f string) string {
		if x == nil {
			return "-"
		}
		return fmt.Sprintf(f, *x)
	}
	for _, row := range rows {
		if row.b == nil && row.c == nil {
			continue
		}
		// Throughput counted by loadgen in one run and by the server in
		// the other is no change to report.
		mixed := row.ci == &v.Throughput && b.TxnSource != c.TxnSource
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
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-32s %14s %14s %9s  %s", row.name, cell(row.b, row.format), cell(row.c, row.format), change, ci), " "))
	}
	if nb, nc := withoutFigure(b.Txn), withoutFigure(c.Txn); nb+nc > 0 {
		fmt.Fprintf(w, "(throughput over the %ss with a figure: %d of %d baseline, %d of %d candidate; a partial %s, or one loadgen did not drive from end to end, has none)\n",
			roundName(r.Round), len(b.Txn)-nb, len(b.Txn), len(c.Txn)-nc, len(c.Txn), roundName(r.Round))
	}
	fmt.Fprintln(w)
}
