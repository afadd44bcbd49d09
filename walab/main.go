// Command walab holds lab utilities. `walab compare` prints seed 000's
// hourly WA table for a baseline and a candidate loadgen run from
// Prometheus, the last 12 non-zero hours of each and the WA reduction, and
// can write the tables as CSV and a PNG chart. See docs/lab.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/walab/walab/internal/compare"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	app := kingpin.New("walab", "walab lab utilities.")
	app.UsageWriter(stderr)
	app.ErrorWriter(stderr)
	app.Terminate(nil)
	cmp := app.Command("compare", "Judge a candidate run against a baseline run: steady state, comparability checks, WA and throughput changes with 95% intervals. Exit 0 VALID, 3 NOT VALID, 1 error, 2 usage.")
	promURL := cmp.Flag("prometheus.url", "Prometheus base URL (or any store with its HTTP API).").Default("http://127.0.0.1:9090").String()
	baseline := cmp.Flag("baseline", "Baseline run id (walab_loadgen_run_info{run_id}).").String()
	candidate := cmp.Flag("candidate", "Candidate run id.").String()
	baseRange := cmp.Flag("baseline-range", "Baseline as a time range START,END (RFC 3339), for load walab's loadgen did not drive.").String()
	candRange := cmp.Flag("candidate-range", "Candidate as a time range START,END (RFC 3339).").String()
	device := cmp.Flag("device", "Device (the exporter's device label).").Default("nvme0").String()
	array := cmp.Flag("array", "Compare an md/dm array's chain instead of one device (seed 001): per round the array's, its members' and its drives' NAND bytes; WA is array to NAND, and the RAID WA is printed against theory. E.g. md0.").String()
	lookback := cmp.Flag("lookback", "How far back to search for the runs.").Default("720h").Duration()
	last := cmp.Flag("last-hours", "Rounds compared per run (seed 000: 12).").Default("12").Int()
	round := cmp.Flag("round", "Length of one table row (1h; 1m for the simulated drive, whose hour is a minute).").Default("1h").Duration()
	sel := cmp.Flag("select", "Compared rounds: steady (the last N from the first SNIA steady window on) or last-nonzero (seed 000's last N rounds with host writes).").Default(compare.SelectSteady).Enum(compare.SelectSteady, compare.SelectLastNonZero)
	steadyWin := cmp.Flag("steady.window", "Steady state: rounds in the measurement window (SNIA's window, fio's ss_dur).").Default("5").Int()
	steadyCrit := cmp.Flag("steady.criterion", "Steady state: snia (excursion and slope), or fio's forms fio-dev:P% (every round within P% of the window's mean) and fio-slope:P% (least-squares slope per round at most P% of the mean).").Default("snia").String()
	steadyExc := cmp.Flag("steady.excursion", "Steady state: largest max-min of the window's WA, as a share of its mean.").Default("0.2").Float64()
	steadySlope := cmp.Flag("steady.slope", "Steady state: largest least-squares slope excursion across the window, as a share of its mean.").Default("0.1").Float64()
	batch := cmp.Flag("batch", "Rounds per batch for the 95% intervals (batch means; 0: 1 when the rounds show no positive lag-1 autocorrelation, else sqrt of the rounds).").Default("0").Int()
	fillTol := cmp.Flag("fill-tolerance", "Largest difference of filesystem fill at the runs' starts (share of the filesystem).").Default("0.10").Float64()
	rateTol := cmp.Flag("rate-tolerance", "Largest relative difference of the host write rate.").Default("0.25").Float64()
	placementChk := cmp.Flag("placement-check", "differs: the candidate must have streams/FDP on and the baseline off; off: no placement check.").Default("differs").Enum("differs", "off")
	minShare := cmp.Flag("placement-min-share", "With the placement tracer's counts: least share of the candidate's write bytes that must carry a placement id.").Default("0.5").Float64()
	maxBaseShare := cmp.Flag("baseline-max-share", "With the placement tracer's counts: largest share of the baseline's write bytes that may carry one.").Default("0.05").Float64()
	allowDrift := cmp.Flag("allow-config-drift", "Accept runs whose MySQL variables differ (they are still listed).").Bool()
	allowDev := cmp.Flag("allow-different-device", "Accept runs on drives with another serial or firmware.").Bool()
	allowInvalid := cmp.Flag("allow-invalid", "Print the reduction even when the comparison is NOT VALID (the exit code stays 3).").Bool()
	csvPath := cmp.Flag("csv", "Write both tables to this CSV file (a new file: an existing one is never overwritten).").String()
	jsonPath := cmp.Flag("json", "Write the verdict, checks, facts and tables to this JSON file (a new file).").String()
	htmlPath := cmp.Flag("html", "Write a self-contained HTML report (verdict, checks, chart, tables) to this file (a new file).").String()
	pngPath := cmp.Flag("png", "Draw both runs' WA per round into this PNG file (a new file).").String()
	timeout := cmp.Flag("timeout", "Overall timeout.").Default("2m").Duration()
	exp := defineExperiment(app)

	cmd, err := app.Parse(args)
	if err != nil {
		fmt.Fprintln(stderr, "walab:", err)
		return 2
	}
	if exp.handles(cmd) {
		return exp.execute(cmd, stdout, stderr)
	}
	if cmd != cmp.FullCommand() {
		return 0 // --help
	}
	opts := compare.Options{
		Baseline: *baseline, Candidate: *candidate, Device: *device, Array: *array, LastHours: *last, Round: *round, Select: *sel,
		Steady: compare.Steady{Window: *steadyWin, MaxExcursion: *steadyExc, MaxSlope: *steadySlope},
		Checks: compare.CheckOptions{AllowDifferentDevice: *allowDev, AllowConfigDrift: *allowDrift, FillTolerance: *fillTol, RateTolerance: *rateTol,
			Placement: *placementChk, PlacementMinShare: *minShare, BaselineMaxShare: *maxBaseShare},
		Interval: compare.BatchMeans{Batch: *batch},
	}
	var err2 error
	if opts.BaselineRange, err2 = parseRange("--baseline-range", *baseRange); err2 == nil {
		opts.CandidateRange, err2 = parseRange("--candidate-range", *candRange)
	}
	if err2 == nil {
		err2 = needRun("--baseline", *baseline, opts.BaselineRange)
	}
	if err2 == nil {
		err2 = needRun("--candidate", *candidate, opts.CandidateRange)
	}
	if err2 == nil {
		opts.Steady.Method, opts.Steady.Limit, err2 = compare.ParseCriterion(*steadyCrit)
		if err2 != nil {
			err2 = fmt.Errorf("--steady.criterion: %w", err2)
		}
	}
	if err2 == nil {
		err2 = opts.Steady.Validate()
	}
	for _, f := range [][2]string{{"--csv", *csvPath}, {"--json", *jsonPath}, {"--png", *pngPath}, {"--html", *htmlPath}} {
		if _, err := os.Lstat(f[1]); err2 == nil && f[1] != "" && err == nil {
			err2 = fmt.Errorf("%s %s: the file exists; walab never overwrites a file (choose a new one)", f[0], f[1])
		}
	}
	if err2 != nil {
		fmt.Fprintln(stderr, "walab compare:", err2)
		return 2
	}
	client, err := api.NewClient(api.Config{Address: *promURL})
	if err != nil {
		fmt.Fprintln(stderr, "walab compare: --prometheus.url:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	now := time.Now()
	opts.From, opts.To = now.Add(-*lookback), now
	for _, r := range []*[2]time.Time{opts.BaselineRange, opts.CandidateRange} {
		if r != nil && r[0].Before(opts.From) {
			opts.From = r[0].Add(-time.Minute)
		}
	}
	res, err := compare.Compare(ctx, compare.Source{API: v1.NewAPI(client)}, opts)
	if err != nil {
		fmt.Fprintln(stderr, "walab compare:", err)
		return 1
	}
	if err := res.Write(stdout, *allowInvalid); err != nil {
		fmt.Fprintln(stderr, "walab compare:", err)
		return 1
	}
	if err := writeOutputs(res, *csvPath, *jsonPath, *pngPath, *htmlPath, *allowInvalid); err != nil {
		fmt.Fprintln(stderr, "walab compare:", err)
		return 1
	}
	if !res.Verdict.Valid {
		return 3
	}
	return 0
}

// parseRange reads START,END in RFC 3339.
func parseRange(flag, s string) (*[2]time.Time, error) {
	if s == "" {
		return nil, nil
	}
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return nil, fmt.Errorf("%s %q: want START,END (RFC 3339, e.g. 2026-09-21T13:46:40Z,2026-09-22T01:46:40Z)", flag, s)
	}
	var r [2]time.Time
	for i, v := range []string{a, b} {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", flag, s, err)
		}
		r[i] = t
	}
	if !r[1].After(r[0]) {
		return nil, fmt.Errorf("%s %q: the end must be after the start", flag, s)
	}
	return &r, nil
}

func needRun(flag, id string, r *[2]time.Time) error {
	switch {
	case id == "" && r == nil:
		return fmt.Errorf("%s or %s-range is required", flag, flag)
	case id != "" && r != nil:
		return fmt.Errorf("give %s or %s-range, not both", flag, flag)
	}
	return nil
}

// writeOutputs writes the files asked for. Each is created new (O_EXCL,
// no symlink followed): walab never overwrites a file, its own or not.
func writeOutputs(res *compare.Result, csvPath, jsonPath, pngPath, htmlPath string, allowInvalid bool) error {
	write := func(flag, path string, fn func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return fmt.Errorf("%s: %w (choose a new file)", flag, err)
		}
		if err := fn(f); err != nil {
			f.Close()
			os.Remove(path)
			return fmt.Errorf("%s: %w", flag, err)
		}
		return f.Close()
	}
	if err := write("--csv", csvPath, func(w io.Writer) error {
		return compare.WriteCSV(w, res.Runs[:], res.Tables[:])
	}); err != nil {
		return err
	}
	if err := write("--json", jsonPath, res.WriteJSON); err != nil {
		return err
	}
	if err := write("--html", htmlPath, func(w io.Writer) error { return res.WriteHTML(w, allowInvalid) }); err != nil {
		return err
	}
	return write("--png", pngPath, func(w io.Writer) error {
		return compare.WritePNG(w, res.ChartSeries())
	})
}
