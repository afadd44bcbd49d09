package experiment

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
)

// steadyWatch follows a run's WA round by round (the drive's host and NAND
// counters from the exporter, read at each round's end) and ends the run
// once the last window of rounds holds under compare's rule
// (compare.Steady.Holds: SNIA's excursion and slope, and the drift of the
// window's line), or at max with "not steady". It is the stop of the run's
// command (stepProcess.await polls it).
type steadyWatch struct {
	read       func() (host, media *float64)
	now        func() time.Time
	crit       compare.Steady
	round, max time.Duration
	min        int // rounds: held earlier is not the end (steadyFloor)
	start      time.Time
	host, nand float64 // the counters at the last round's end
	rounds     int     // round ends passed
	was        []float64
	trend      *compare.Trend
	held       string
}

// untilSteady is run r's watch and the stop its command polls; none
// without until_steady.
func (rs *runStep) untilSteady(ctx context.Context, r *plan.Run) (*steadyWatch, func() (bool, string), error) {
	if r == nil || r.UntilSteady == nil {
		return nil, nil, nil
	}
	w, err := rs.newSteadyWatch(ctx, r.UntilSteady)
	if err != nil {
		return nil, nil, err
	}
	w.min = rs.steadyFloor()
	return w, w.stop, nil
}

// steadyFloor is the most rounds an earlier until_steady run of the
// experiment lasted. A later run is not ended before it: compare reads
// both arms over the same round numbers (equal windows), so the later
// run has the rounds of the earlier one's held window too.
func (rs *runStep) steadyFloor() int {
	n := 0
	for _, r := range rs.journal.Runs {
		if r.UntilSteady != "" {
			n = max(n, int(r.End.Sub(r.Start)/time.Duration(rs.plan.Round)))
		}
	}
	return n
}

// noteSteady records and prints how a watched run ended.
func (rs *runStep) noteSteady(rec *state.RunRecord, w *steadyWatch) {
	if w == nil {
		return
	}
	rec.UntilSteady = w.result()
	rs.printf("[run] %s: %s", rec.RunID, rec.UntilSteady)
}

// newSteadyWatch starts a watch on the plan's drive; its counters must be
// readable now, or the run is refused before it starts.
func (rs *runStep) newSteadyWatch(ctx context.Context, u *plan.UntilSteady) (*steadyWatch, error) {
	read := func() (host, media *float64) {
		d, err := fingerprint.ReadDrive(ctx, httpClient(rs.http), rs.plan.Exporter, rs.plan.Device)
		if err != nil && d == nil {
			return nil, nil
		}
		return d.HostWrittenBytes, d.MediaWrittenBytes
	}
	crit := compare.SNIA
	crit.Window, crit.Drift = u.WindowOrDefault(), u.DriftOrDefault()
	return startSteadyWatch(read, time.Now, crit, time.Duration(rs.plan.Round), u.Max.D())
}

// startSteadyWatch reads the counters at the run's start.
func startSteadyWatch(read func() (host, media *float64), now func() time.Time, crit compare.Steady, round, max time.Duration) (*steadyWatch, error) {
	host, media := read()
	if host == nil || media == nil {
		return nil, fmt.Errorf("until_steady: the exporter reports no host and NAND write counters for the drive")
	}
	return &steadyWatch{read: read, now: now, crit: crit, round: round, max: max, start: now(), host: *host, nand: *media}, nil
}

// stop is polled while the run's command runs: at each round's end it
// adds the round's WA (a round without host writes or counters adds
// none) and judges the last window, which ends the run once it holds and
// the run has lasted min rounds; at max it ends the run not steady.
func (w *steadyWatch) stop() (bool, string) {
	el := w.now().Sub(w.start)
	if k := int(el / w.round); k > w.rounds {
		w.rounds = k
		if host, media := w.read(); host != nil && media != nil {
			if dh := *host - w.host; dh > 0 {
				w.was = append(w.was, (*media-w.nand)/dh)
			}
			w.host, w.nand = *host, *media
		}
		if n := len(w.was); n >= w.crit.Window {
			ok, tr := w.crit.Holds(w.was[n-w.crit.Window:], n-w.crit.Window+1)
			w.trend = &tr
			if ok && w.rounds >= w.min {
				w.held = fmt.Sprintf("WA held for %d rounds of %s (rounds %d–%d, WA %s): %s", w.crit.Window, w.round, tr.First, tr.Last, waList(w.was[n-w.crit.Window:]), tr)
				return true, w.held
			}
		}
	}
	if el >= w.max {
		return true, w.result()
	}
	return false, ""
}

// result is how the run ended: held, or not steady and why.
func (w *steadyWatch) result() string {
	if w.held != "" {
		return w.held
	}
	if w.trend == nil {
		return fmt.Sprintf("not steady: %d round(s) with host writes by the end (until_steady window %d, max %s)", len(w.was), w.crit.Window, w.max)
	}
	return fmt.Sprintf("not steady by the end (until_steady max %s): the last %d rounds' WA %s: %s", w.max, w.crit.Window, waList(w.was[len(w.was)-w.crit.Window:]), w.trend)
}

func waList(ys []float64) string {
	s := make([]string, len(ys))
	for i, y := range ys {
		s[i] = fmt.Sprintf("%.3f", y)
	}
	return strings.Join(s, ", ")
}
