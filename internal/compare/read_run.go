package compare

import (
	"context"
	"fmt"
	"time"
)

// runOf finds run i of o (0 baseline, 1 candidate): its time range when
// o gives one, else FindRun over [o.From, o.To].
func (s Source) runOf(ctx context.Context, o Options, i int) (Run, error) {
	id, r := o.Baseline, o.BaselineRange
	if i == 1 {
		id, r = o.Candidate, o.CandidateRange
	}
	if r == nil {
		return s.FindRun(ctx, id, o.From, o.To)
	}
	if !r[1].After(r[0]) {
		return Run{}, fmt.Errorf("%s range %s..%s: the end must be after the start", roles[i], r[0].Format(time.RFC3339), r[1].Format(time.RFC3339))
	}
	return Run{ID: roles[i] + "-range", Scenario: "range", Start: r[0].UTC(), End: r[1].UTC()}, nil
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
