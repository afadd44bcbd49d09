package compare

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// roundFacts reads the compared rounds' throughput and latency from the
// counters' raw samples over exactly each round's span (roundIncreases):
// committed transactions and New-Orders per round, and the p95/p99 of
// each round and of all compared rounds together from the latency
// histogram's bucket increases. A partial round has no figure, nor has a
// round loadgen did not drive from end to end (outsideLoad).
func (s Source) roundFacts(ctx context.Context, f *RunFacts, bs []bound, tsel string) error {
	total := func(sel string) ([]*float64, error) {
		m, err := s.roundIncreases(ctx, sel, "", bs)
		if err != nil || !anySet(m[""]) {
			return nil, err
		}
		return m[""], nil
	}
	var err error
	if f.Txn, err = total(promql.LoadgenTransactions + `{outcome="committed"}`); err != nil {
		return err
	}
	if f.Txn != nil {
		f.TxnSource = TxnLoadgen
	} else {
		// Load from another client (sysbench, BenchmarkSQL): the COMMITs the
		// servers of the run's targets executed (every target for a run
		// given as a time range).
		if f.Txn, err = total(promql.MySQLCommands + `{command="commit"` + tsel + `}`); err != nil {
			return err
		}
		if f.Txn != nil {
			f.TxnSource = TxnServer
		}
	}
	if f.NewOrder, err = total(promql.LoadgenTransactions + `{outcome="committed",type="new_order"}`); err != nil {
		return err
	}
	byLE, err := s.roundIncreases(ctx, promql.LoadgenTxnDurationBucket, "le", bs)
	if err != nil {
		return err
	}
	edge, err := s.outsideLoad(ctx, bs, tsel)
	if err != nil {
		return err
	}
	for i, out := range edge {
		if !out {
			continue
		}
		for _, xs := range append([][]*float64{f.NewOrder}, mapValues(byLE)...) {
			if i < len(xs) {
				xs[i] = nil
			}
		}
		if f.TxnSource == TxnLoadgen {
			f.Txn[i] = nil
		}
	}
	whole := map[string][]*float64{}
	for le, xs := range byLE {
		var sum float64
		for _, x := range xs {
			if x != nil {
				sum += *x
			}
		}
		whole[le] = []*float64{&sum}
	}
	f.P95, f.P99 = bucketQuantile(0.95, whole, 0), bucketQuantile(0.99, whole, 0)
	for i := range bs {
		p95, p99 := bucketQuantile(0.95, byLE, i), bucketQuantile(0.99, byLE, i)
		f.P95Rounds, f.P99Rounds = append(f.P95Rounds, p95), append(f.P99Rounds, p99)
	}
	if !anySet(f.P95Rounds) {
		f.P95Rounds, f.P99Rounds = nil, nil
	}
	return nil
}

func mapValues(m map[string][]*float64) [][]*float64 {
	out := make([][]*float64, 0, len(m))
	for _, xs := range m {
		out = append(out, xs)
	}
	return out
}

// bucketQuantile is the phi-quantile of round i of a classic histogram's
// bucket increases by le, as PromQL's histogram_quantile computes it:
// linear within the bucket the rank falls in, the lowest bucket starting
// at 0, the highest finite bound when the rank is in +Inf. nil without a
// +Inf bucket, without observations or when the round has no figure.
func bucketQuantile(phi float64, byLE map[string][]*float64, i int) *float64 {
	type bucket struct{ le, n float64 }
	var bs []bucket
	for le, xs := range byLE {
		if i >= len(xs) || xs[i] == nil {
			return nil
		}
		ub, err := strconv.ParseFloat(le, 64)
		if err != nil {
			continue
		}
		bs = append(bs, bucket{ub, *xs[i]})
	}
	sort.Slice(bs, func(a, b int) bool { return bs[a].le < bs[b].le })
	if len(bs) < 2 || !math.IsInf(bs[len(bs)-1].le, 1) || bs[len(bs)-1].n <= 0 {
		return nil
	}
	for j := 1; j < len(bs); j++ { // cumulative counts never fall
		bs[j].n = math.Max(bs[j].n, bs[j-1].n)
	}
	rank := phi * bs[len(bs)-1].n
	j := sort.Search(len(bs), func(j int) bool { return bs[j].n >= rank })
	if j == len(bs)-1 {
		q := bs[len(bs)-2].le
		return &q
	}
	lo, below := 0.0, 0.0
	if j > 0 {
		lo, below = bs[j-1].le, bs[j-1].n
	} else if bs[0].le <= 0 {
		q := bs[0].le
		return &q
	}
	q := lo + (bs[j].le-lo)*(rank-below)/(bs[j].n-below)
	return &q
}

// outsideLoad marks the rounds loadgen did not drive from end to end: a
// round is partial when, for a target whose terminals were active in the
// window, it starts before the first sample with active terminals or ends
// after the last one (the run's first and last rounds hold the start-up
// and the drain, and run_info outlives the load by a scrape or more).
// Nothing is marked without loadgen's terminal gauge (load from another
// client).
func (s Source) outsideLoad(ctx context.Context, bs []bound, tsel string) ([]bool, error) {
	out := make([]bool, len(bs))
	if len(bs) == 0 {
		return out, nil
	}
	round := bs[0].to.Sub(bs[0].from)
	end := bs[len(bs)-1].to.Add(round)
	q := fmt.Sprintf(promql.LoadgenActiveTerminals+"{%s}[%s]", strings.TrimPrefix(tsel, ","), model.Duration(end.Sub(bs[0].from.Add(-round))))
	res, _, _, err := s.API.Query(ctx, q, end)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q, err)
	}
	m, _ := res.(model.Matrix)
	for _, ss := range m {
		var first, last time.Time
		for _, p := range ss.Values {
			if p.Value > 0 {
				if first.IsZero() {
					first = p.Timestamp.Time()
				}
				last = p.Timestamp.Time()
			}
		}
		if first.IsZero() {
			continue
		}
		for i, b := range bs {
			out[i] = out[i] || b.from.Before(first) || b.to.After(last)
		}
	}
	return out, nil
}
