package compare

import "context"

// selectSteadyThroughput returns the rounds the performance figures come
// from: the rounds WA's steady state left (from the first steady WA window
// on), from the first steady throughput window on, the last o.LastHours of
// them. A warm-up after a restore (a cold buffer pool) or a load step is
// then not compared as if it were the treatment's effect. WA keeps its own
// steady rounds: a throughput step does not change what the drive wrote
// per host byte. When throughput is never steady, the WA selection stands
// and the check says so.
func (s Source) selectSteadyThroughput(ctx context.Context, run Run, rounds []Hour, o Options) ([]Hour, ThroughputSteady, error) {
	rounds = LastNonZero(rounds, len(rounds))
	targets, err := s.runTargets(ctx, run, runSpan(run))
	if err != nil {
		return nil, ThroughputSteady{}, err
	}
	var f RunFacts
	if err := s.roundFacts(ctx, &f, roundBounds(rounds, o.Round), targetSelector(targets)); err != nil {
		return nil, ThroughputSteady{}, err
	}
	k, ok := throughputFrom(o.Steady, f.Txn)
	ts := ThroughputSteady{Applies: ok}
	if k >= 0 {
		ts.From = rounds[k].Hour
		rounds = rounds[k:]
	}
	return LastNonZero(rounds, o.LastHours), ts, nil
}
