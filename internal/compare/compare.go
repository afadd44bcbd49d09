package compare

import (
	"context"
	"fmt"
)

// Compare is the pipeline doc.go describes: for each run, read it and
// select its compared rounds (readTable); then judge the pair. Its callers
// render the Result. Options are validated once, by Options.Validate,
// after a zero field is read as its default.
func Compare(ctx context.Context, src Source, o Options) (*Result, error) {
	o = o.withDefaults()
	err := o.Validate()
	if err != nil {
		return nil, err
	}
	answers := &warnAPI{API: src.API}
	src.API = answers
	res := newResult(o)
	var devices [2][]string
	for i := range roles {
		if devices[i], err = readTable(ctx, src, o, res, i); err != nil {
			return nil, err
		}
	}
	sel, err := o.selectWindows(res.Tables)
	if err != nil {
		return nil, fmt.Errorf("runs %s and %s: %w", res.Runs[0].ID, res.Runs[1].ID, err)
	}
	res.Last, res.SteadyAt, res.Trend = sel.Rounds, sel.SteadyAt, sel.Trend
	for i := range roles {
		if err := readFacts(ctx, src, o, res, i, devices[i]); err != nil {
			return nil, err
		}
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

// readTable finds run i and reads its per-round table into res; it
// returns the run's devices.
func readTable(ctx context.Context, src Source, o Options, res *Result, i int) ([]string, error) {
	run, err := src.runOf(ctx, o, i)
	if err != nil {
		return nil, err
	}
	table, devices, err := src.tableOf(ctx, run, o)
	if err != nil {
		return nil, err
	}
	res.Runs[i], res.Tables[i] = run, table
	res.Missing[i] = MissingHours(table)
	if len(LastNonZero(table, 1)) == 0 {
		return nil, noRound(run.ID, o.subject(), table)
	}
	return devices, nil
}

// noRound says why a run has no round to compare: none with host writes,
// or rounds without trustworthy figures (a NaN NAND counter is not idle).
func noRound(id, subject string, hours []Hour) error {
	bad := MissingHours(hours)
	if len(bad) == 0 {
		return fmt.Errorf("run %s: no round with host writes on %s", id, subject)
	}
	return fmt.Errorf("run %s: no complete round with host writes on %s: %d of %d round(s) have no trustworthy figures (round %d: %s)",
		id, subject, len(bad), len(hours), bad[0].Hour, bad[0].Missing)
}

// readFacts selects run i's performance rounds (from throughput's steady
// state within the compared rounds) and reads the facts of its rounds.
func readFacts(ctx context.Context, src Source, o Options, res *Result, i int, devices []string) error {
	var err error
	run := res.Runs[i]
	res.Perf[i] = res.Last[i]
	if o.Select == SelectSteady {
		if res.Perf[i], res.ThroughputSteady[i], err = src.selectSteadyThroughput(ctx, run, res.Last[i], o); err != nil {
			return err
		}
	}
	res.WA[i] = AggregateWA(res.Last[i])
	f, err := src.Facts(ctx, run, devices, res.Last[i], res.Perf[i], o.Round)
	if err != nil {
		return err
	}
	if o.Array != "" {
		if f.RAIDTheory, err = src.arrayTheory(ctx, run, o.Array); err != nil {
			return err
		}
		if f.RAIDLatency, err = src.arrayLatency(ctx, o.Array, res.Perf[i], o.Round); err != nil {
			return err
		}
	}
	res.Facts[i] = f
	return nil
}
