package compare

import (
	"context"
	"time"
)

// Facts reads what Prometheus knows about a run besides its WA table: the
// compared rounds bound the placement and block-layer windows, the perf
// rounds the throughput and latency figures. What is not there stays
// unset: a check then says "unknown".
func (s Source) Facts(ctx context.Context, run Run, devices []string, compared, perf []Hour, round time.Duration) (RunFacts, error) {
	var f RunFacts
	if len(compared) == 0 {
		return f, nil
	}
	w := s.factWindow(run, devices, compared, round)
	if err := s.identityFacts(ctx, &f, w); err != nil {
		return f, err
	}
	if err := s.driveFacts(ctx, &f, w); err != nil {
		return f, err
	}
	// The MySQL targets loadgen drove in the run (none for a time range):
	// read once, for the offered load, the server's COMMITs and the settings.
	targets, err := s.runTargets(ctx, run, w.runDur)
	if err != nil {
		return f, err
	}
	if err := s.blockFacts(ctx, &f, w); err != nil {
		return f, err
	}
	if err := s.settingsFact(ctx, &f, w, targets); err != nil {
		return f, err
	}
	if err := s.shareFacts(ctx, &f, w); err != nil {
		return f, err
	}
	tsel := targetSelector(targets)
	if err := s.loadFacts(ctx, &f, w, tsel); err != nil {
		return f, err
	}
	if err := s.roundFacts(ctx, &f, roundBounds(perf, round), tsel); err != nil {
		return f, err
	}
	return f, nil
}
