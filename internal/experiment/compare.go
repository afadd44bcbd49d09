package experiment

import (
	"bytes"
	"context"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/report"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
)

// lastRecord is the last counted repetition of a named run.
func lastRecord(st *state.State, run string) *state.RunRecord {
	for i := len(st.Runs) - 1; i >= 0; i-- {
		if st.Runs[i].Run == run {
			return &st.Runs[i]
		}
	}
	return nil
}

// compareStep is the plan's compare step: the verdict of its two named
// runs, recorded in the journal.
type compareStep struct {
	plan      *plan.Plan
	journal   *state.State
	out       string
	onCompare func(*compare.Result) // Executor.OnCompare
	printf    func(format string, args ...any)
}

// run runs the walab compare verdict of the named runs (their last
// counted repetitions) and records it, with the drift between their
// fingerprints. A verdict that cannot be made is recorded with the reason.
func (cs compareStep) run(ctx context.Context, logPath string) error {
	c := cs.plan.Compare
	rec := &state.CompareRecord{Baseline: c.Baseline, Candidate: c.Candidate}
	cs.journal.Compare = rec
	base, cand := lastRecord(cs.journal, c.Baseline), lastRecord(cs.journal, c.Candidate)
	if base == nil || cand == nil {
		rec.Error = "a named run has no counted repetition"
		return state.WriteAtomic(logPath, []byte(rec.Error+"\n"))
	}
	if fa, err := state.ReadFingerprint(cs.out, base, "start"); err == nil {
		if fb, err := state.ReadFingerprint(cs.out, cand, "start"); err == nil {
			for _, ch := range fingerprint.Diff(fa, fb) {
				rec.Drift = append(rec.Drift, ch.String())
			}
		}
	}
	client, err := api.NewClient(api.Config{Address: cs.plan.Prometheus, RoundTripper: compare.CappedTransport(api.DefaultRoundTripper, compare.MaxResponseBytes)})
	if err != nil {
		rec.Error = err.Error()
		return state.WriteAtomic(logPath, []byte(rec.Error+"\n"))
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	from := earliest(base.Start, cand.Start).Add(-time.Minute)
	to := latest(base.End, cand.End).Add(time.Minute)
	res, err := compare.Compare(cctx, compare.Source{API: v1.NewAPI(client), Step: time.Second}, compare.Options{
		Baseline: base.RunID, Candidate: cand.RunID, Device: cs.plan.Device, From: from, To: to, LastHours: 12,
		Round: time.Duration(cs.plan.Round), Reps: cs.plan.Cycles,
	})
	if err == nil && cs.onCompare != nil {
		cs.onCompare(res)
	}
	var out bytes.Buffer
	if err != nil {
		rec.Error = "walab compare: " + err.Error()
	} else if err := res.Write(&out, false); err != nil {
		rec.Error = "walab compare: " + err.Error()
	} else {
		rec.Valid = &res.Verdict.Valid
	}
	if err == nil {
		rec.Rounds = report.RoundsThroughput(res)
	}
	rec.Text = out.String() + report.FioBeside(base, cand)
	cs.printf("[compare] %s vs %s: %s", base.RunID, cand.RunID, firstLine(rec.Text, rec.Error))
	return state.WriteAtomic(logPath, []byte(rec.Text+rec.Error+"\n"))
}

func firstLine(text, err string) string {
	if err != "" {
		return "no verdict: " + err
	}
	if i := bytes.IndexByte([]byte(text), '\n'); i >= 0 {
		return text[:i]
	}
	return text
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
