package compare

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// arrayLatency reads seed 001's RAID latency over the rounds hours (the
// performance rounds): the array's r_await and w_await, and the slowest
// member's, each from the counters' increase over the whole window (time
// spent / requests completed, as iostat computes it). A figure is absent
// when the array had no such request, or when a member the array had in
// the window has none: then the maximum over the others is not the
// slowest member's.
func (s Source) arrayLatency(ctx context.Context, array string, hours []Hour, round time.Duration) (*RAIDLatency, error) {
	l := &RAIDLatency{}
	if len(hours) == 0 {
		return l, nil
	}
	end := hours[len(hours)-1].At
	win := model.Duration(end.Sub(hours[0].At.Add(-round))).String()
	for _, q := range []struct {
		dst         **float64
		time, count string
	}{
		{&l.ReadArraySec, promql.BlockdevReadTime, promql.BlockdevReadsCompleted},
		{&l.WriteArraySec, promql.BlockdevWriteTime, promql.BlockdevWritesCompleted},
	} {
		expr := fmt.Sprintf(`sum(increase(%[1]s{device=%[3]q}[%[4]s])) / (sum(increase(%[2]s{device=%[3]q}[%[4]s])) > 0)`, q.time, q.count, array, win)
		v, err := s.instantScalar(ctx, expr, end)
		if err != nil {
			return l, fmt.Errorf("array %s: %w", array, err)
		}
		*q.dst = v
	}
	for _, q := range []struct {
		dst         **float64
		time, count string
	}{
		{&l.ReadSlowestMemberSec, promql.BlockdevReadTime, promql.BlockdevReadsCompleted},
		{&l.WriteSlowestMemberSec, promql.BlockdevWriteTime, promql.BlockdevWritesCompleted},
	} {
		v, err := s.instantScalar(ctx, slowestMember(array, q.time, q.count, win), end)
		if err != nil {
			return l, fmt.Errorf("array %s: %w", array, err)
		}
		*q.dst = v
	}
	return l, nil
}

// slowestMember is the PromQL of the highest await among an array's
// members over win, present only when every member the array had in the
// window has one.
func slowestMember(array, timeMetric, countMetric, win string) string {
	members := fmt.Sprintf(`max_over_time(%s{array=%q}[%s])`, promql.BlockdevMemberInfo, array, win)
	of := func(metric string) string {
		return fmt.Sprintf(`(increase(%s[%s]) * on (instance, job, device) group_left () %s)`, metric, win, members)
	}
	await := fmt.Sprintf(`(%s / (%s > 0))`, of(timeMetric), of(countMetric))
	return fmt.Sprintf(`max(%[1]s) and on () (count(%[1]s) == count(%[2]s))`, await, members)
}

// instantScalar is the one value of an instant query at t, nil when the
// answer is empty or not a finite number.
func (s Source) instantScalar(ctx context.Context, q string, t time.Time) (*float64, error) {
	v, err := s.instant(ctx, q, t)
	if err == nil && len(v) > 1 {
		return nil, fmt.Errorf("query %s: %d series, want one", q, len(v))
	}
	return finiteFirst(v), err
}

// arrayTheory reads the array's full-stripe WA at the run's end.
func (s Source) arrayTheory(ctx context.Context, run Run, array string) (*float64, error) {
	res, _, _, err := s.API.Query(ctx, fmt.Sprintf(`max(last_over_time(`+promql.MDTheoreticalWA+`{device=%q}[%s]))`, array, runSpan(run)), run.End)
	if err != nil {
		return nil, fmt.Errorf("array %s: %w", array, err)
	}
	if v, ok := res.(model.Vector); ok && len(v) > 0 && nonFinite(figure{"theory", float64(v[0].Value)}) == "" {
		x := float64(v[0].Value)
		return &x, nil
	}
	return nil, nil
}
