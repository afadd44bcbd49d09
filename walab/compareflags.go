package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/walab/walab/internal/cliflag"
	"github.com/walab/walab/internal/compare"
)

// compareCmd is `walab compare`: its flags fill the library's options,
// starting from compare.DefaultOptions, and the command's own settings.
type compareCmd struct {
	cmd  *kingpin.CmdClause
	opts compare.Options

	promURL, instance    string
	baseRange, candRange string
	criterion            string
	lookback, timeout    time.Duration
	allowInvalid         bool
	out                  outputPaths
}

// outputPaths are the files `walab compare` writes ("" = not asked for).
type outputPaths struct{ csv, json, html, png string }

// compareFlagOf names the flag of each field compare.Options.Validate can
// refuse.
var compareFlagOf = map[string]string{"LastHours": "--last-hours", "Round": "--round", "Select": "--select", "Checks.Placement": "--placement-check"}

func defineCompare(app *kingpin.Application) *compareCmd {
	d := compare.DefaultOptions()
	c := &compareCmd{opts: d}
	o := &c.opts
	cmd := app.Command("compare", "Judge a candidate run against a baseline run: steady state, comparability checks, WA and throughput changes with 95% intervals. Exit 0 VALID, 3 NOT VALID, 1 error, 2 usage.")
	c.cmd = cmd
	cmd.Flag("prometheus.url", "Prometheus base URL (or any store with its HTTP API).").Default("http://127.0.0.1:9090").StringVar(&c.promURL)
	cmd.Flag("baseline", "Baseline run id (walab_loadgen_run_info{run_id}).").StringVar(&o.Baseline)
	cmd.Flag("candidate", "Candidate run id.").StringVar(&o.Candidate)
	cmd.Flag("baseline-range", "Baseline as a time range START,END (RFC 3339), for load walab's loadgen did not drive.").StringVar(&c.baseRange)
	cmd.Flag("candidate-range", "Candidate as a time range START,END (RFC 3339).").StringVar(&c.candRange)
	cmd.Flag("device", "Device (the exporter's device label).").Default("nvme0").StringVar(&o.Device)
	cmd.Flag("instance", "Read the device's series of this instance label only (required when the device name has series from several hosts).").StringVar(&c.instance)
	cmd.Flag("array", "Compare an md/dm array's chain instead of one device (seed 001): per round the array's, its members' and its drives' NAND bytes; WA is array to NAND, the RAID WA is printed against theory and the RAID latency overhead (array r_await/w_await minus the slowest member's) per run. E.g. md0.").StringVar(&o.Array)
	cmd.Flag("lookback", "How far back to search for the runs.").Default("720h").DurationVar(&c.lookback)
	cmd.Flag("last-hours", "Rounds compared per run (seed 000: 12).").Default(strconv.Itoa(d.LastHours)).IntVar(&o.LastHours)
	cmd.Flag("round", "Length of one table row (1h; 1m for the simulated drive, whose hour is a minute).").Default(shortDuration(d.Round)).DurationVar(&o.Round)
	cmd.Flag("select", "Compared rounds: steady (the last N from the first SNIA steady window on) or last-nonzero (seed 000's last N rounds with host writes).").Default(d.Select).EnumVar(&o.Select, compare.SelectSteady, compare.SelectLastNonZero)
	cmd.Flag("steady.window", "Steady state: rounds in the measurement window (SNIA's window, fio's ss_dur).").Default(strconv.Itoa(d.Steady.Window)).IntVar(&o.Steady.Window)
	cmd.Flag("steady.criterion", "Steady state: snia (excursion and slope), or fio's forms fio-dev:P% (every round within P% of the window's mean) and fio-slope:P% (least-squares slope per round at most P% of the mean).").Default("snia").StringVar(&c.criterion)
	cliflag.FloatVar(cmd.Flag("steady.excursion", "Steady state: largest max-min of the window's WA, as a share of its mean.").Default(ftoa(d.Steady.MaxExcursion)), &o.Steady.MaxExcursion, 0, math.Inf(1))
	cliflag.FloatVar(cmd.Flag("steady.slope", "Steady state: largest least-squares slope excursion across the window, as a share of its mean.").Default(ftoa(d.Steady.MaxSlope)), &o.Steady.MaxSlope, 0, math.Inf(1))
	cliflag.IntVar(cmd.Flag("batch", "Rounds per batch for the 95% intervals (batch means; 0: 1 when the rounds show no positive lag-1 autocorrelation, else sqrt of the rounds).").Default(strconv.Itoa(d.Interval.Batch)), &o.Interval.Batch, 0, math.MaxInt32)
	cliflag.FloatVar(cmd.Flag("steady.drift", "Steady state: largest drift of the compared rounds' least-squares line (slope x (rounds-1)), as a share of their mean, in either run.").Default(ftoa(d.Steady.Drift)), &o.Steady.Drift, 0, 1)
	cliflag.FloatVar(cmd.Flag("worn-in.min", "Least host writes, in drive capacities, from each run's start to its first compared round.").Default(ftoa(*d.Checks.WornInMin)), o.Checks.WornInMin, 0, math.Inf(1))
	cliflag.FloatVar(cmd.Flag("worn-in.tolerance", "Largest difference of the two runs' writes before their compared rounds, as a share of the larger.").Default(ftoa(*d.Checks.WornInTolerance)), o.Checks.WornInTolerance, 0, 1)
	cliflag.FloatVar(cmd.Flag("fill-tolerance", "Largest difference of filesystem fill at the runs' starts (share of the filesystem; 0: none).").Default(fmt.Sprintf("%.2f", *d.Checks.FillTolerance)), o.Checks.FillTolerance, 0, 1)
	cliflag.FloatVar(cmd.Flag("rate-tolerance", "Largest relative difference of the host write rate (0: none).").Default(ftoa(*d.Checks.RateTolerance)), o.Checks.RateTolerance, 0, math.Inf(1))
	cmd.Flag("placement-check", "differs: the candidate must have streams/FDP on and the baseline off; off: no placement check.").Default(d.Checks.Placement).EnumVar(&o.Checks.Placement, compare.PlacementDiffers, compare.PlacementOff)
	cliflag.FloatVar(cmd.Flag("placement-min-share", "With the placement tracer's counts: least share of the candidate's write bytes that must carry a placement id.").Default(ftoa(*d.Checks.PlacementMinShare)), o.Checks.PlacementMinShare, 0, 1)
	cliflag.FloatVar(cmd.Flag("baseline-max-share", "With the placement tracer's counts: largest share of the baseline's write bytes that may carry one.").Default(ftoa(*d.Checks.BaselineMaxShare)), o.Checks.BaselineMaxShare, 0, 1)
	cliflag.FloatVar(cmd.Flag("namespace-min-share", "With FDP on in both runs and per-namespace write counters: least share of the candidate's write bytes outside its busiest namespace (the baseline's may be at most --baseline-max-share).").Default(ftoa(*d.Checks.NamespaceMinShare)), o.Checks.NamespaceMinShare, 0, 1)
	cmd.Flag("allow-config-drift", "Accept runs whose MySQL variables differ (they are still listed).").BoolVar(&o.Checks.AllowConfigDrift)
	cmd.Flag("allow-different-device", "Accept runs on drives with another serial or firmware.").BoolVar(&o.Checks.AllowDifferentDevice)
	cmd.Flag("allow-invalid", "Print the reduction even when the comparison is NOT VALID (the exit code stays 3).").BoolVar(&c.allowInvalid)
	cmd.Flag("csv", "Write both tables to this CSV file (a new file: an existing one is never overwritten).").StringVar(&c.out.csv)
	cmd.Flag("json", "Write the verdict, checks, facts and tables to this JSON file (a new file).").StringVar(&c.out.json)
	cmd.Flag("html", "Write a self-contained HTML report (verdict, checks, chart, tables) to this file (a new file).").StringVar(&c.out.html)
	cmd.Flag("png", "Draw both runs' WA per round into this PNG file (a new file).").StringVar(&c.out.png)
	cmd.Flag("timeout", "Overall timeout.").Default("2m").DurationVar(&c.timeout)
	return c
}

func (c *compareCmd) handles(cmd string) bool { return cmd == c.cmd.FullCommand() }

// options completes the parsed flags into the comparison's options,
// searching from now back --lookback, and refuses values that cannot mean
// anything (a zero timeout is an instant deadline, a negative lookback
// searches the future), naming the flag.
func (c *compareCmd) options(now time.Time) (compare.Options, error) {
	o := c.opts
	var err error
	if o.BaselineRange, err = parseRange("--baseline-range", c.baseRange); err != nil {
		return o, err
	}
	if o.CandidateRange, err = parseRange("--candidate-range", c.candRange); err != nil {
		return o, err
	}
	if err := needRun("--baseline", o.Baseline, o.BaselineRange); err != nil {
		return o, err
	}
	if err := needRun("--candidate", o.Candidate, o.CandidateRange); err != nil {
		return o, err
	}
	if o.Steady.Method, o.Steady.Limit, err = compare.ParseCriterion(c.criterion); err != nil {
		return o, fmt.Errorf("--steady.criterion: %w", err)
	}
	if err := o.Validate(); err != nil {
		var fe *compare.FieldError
		if errors.As(err, &fe) && compareFlagOf[fe.Field] != "" {
			return o, fmt.Errorf("%s %v: %s", compareFlagOf[fe.Field], fe.Value, fe.Want)
		}
		return o, err
	}
	switch {
	case c.lookback <= 0:
		return o, fmt.Errorf("--lookback %s: want a positive duration", c.lookback)
	case c.timeout <= 0:
		return o, fmt.Errorf("--timeout %s: want a positive duration", c.timeout)
	}
	for _, f := range c.out.list() {
		if _, err := os.Lstat(f.path); f.path != "" && err == nil {
			return o, fmt.Errorf("%s %s: the file exists; walab never overwrites a file (choose a new one)", f.flag, f.path)
		}
	}
	o.From, o.To = now.Add(-c.lookback), now
	for _, r := range []*[2]time.Time{o.BaselineRange, o.CandidateRange} {
		if r != nil && r[0].Before(o.From) {
			o.From = r[0].Add(-time.Minute)
		}
	}
	return o, nil
}

// list pairs each output path with its flag, in the order files are
// checked and written.
func (p outputPaths) list() []struct{ flag, path string } {
	return []struct{ flag, path string }{{"--csv", p.csv}, {"--json", p.json}, {"--html", p.html}, {"--png", p.png}}
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

// ftoa is a flag's default text of a share.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// shortDuration is a flag's default text of a duration: 1h, not 1h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
