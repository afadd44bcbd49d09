package compare

import (
	"context"
	"fmt"
	"math"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// Coverage is the least share of an hour that a counter must cover,
// relative to the other counter's samples, for the hour to count: an
// increase() over a few minutes of samples is an extrapolation, not the
// hour's writes.
const Coverage = 0.9

// Hourly is Table with one-hour rounds.
func (s Source) Hourly(ctx context.Context, run Run, device string) ([]Hour, error) {
	return s.Table(ctx, run, device, time.Hour)
}

// Table returns the run's per-round table for one device: round h covers
// [start + (h-1)·round, start + h·round]; rounds that end after the run are
// left out. Every round of the run is in the table: one without NAND or
// host data, or with one counter sampled for less than Coverage of the
// other's samples, has Missing set (never NAND 0).
func (s Source) Table(ctx context.Context, run Run, device string, round time.Duration) ([]Hour, error) {
	r, err := namedRounds("device", device, run, round)
	if err != nil {
		return nil, err
	}
	if err := s.oneHost(ctx, run, device); err != nil {
		return nil, err
	}
	first, rs := r.Start, model.Duration(round).String()
	get := func(fn, metric string) (map[int64]float64, error) {
		m, err := s.perRound(ctx, fmt.Sprintf(`sum(%s(%s{device=%q%s}[%s]))`, fn, metric, device, s.onHost(), rs), r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", metric, err)
		}
		return m, nil
	}
	nandMetric, hostMetric := promql.NVMeMediaWrittenBytes, promql.NVMeHostWrittenBytes
	var q [4]map[int64]float64
	for i, c := range [][2]string{{"increase", nandMetric}, {"increase", hostMetric}, {"count_over_time", nandMetric}, {"count_over_time", hostMetric}} {
		m, err := get(c[0], c[1])
		if err != nil {
			return nil, err
		}
		q[i] = m
	}
	nand, host, nandN, hostN := q[0], q[1], q[2], q[3]
	var hours []Hour
	seen := false
	for at := first; !at.After(run.End); at = at.Add(round) {
		k, h := roundAt(run, at, round)
		nv, nok := nand[k]
		hv, hok := host[k]
		seen = seen || nok || hok
		switch {
		case !nok && !hok:
			h.Missing = "no counters: exporter or Prometheus not scraping"
		case !nok:
			h.Missing = "no NAND data: the drive's NAND source was down or absent"
		case !hok:
			h.Missing = "no host data"
		case nonFinite(figure{"NAND counter increase", nv}, figure{"host counter increase", hv}, figure{"NAND sample count", nandN[k]}, figure{"host sample count", hostN[k]}) != "":
			h.Missing = nonFinite(figure{"NAND counter increase", nv}, figure{"host counter increase", hv}, figure{"NAND sample count", nandN[k]}, figure{"host sample count", hostN[k]})
		default:
			if lo, hi := min(nandN[k], hostN[k]), max(nandN[k], hostN[k]); hi > 0 && lo < Coverage*hi {
				which := "NAND"
				if hostN[k] < nandN[k] {
					which = "host"
				}
				h.Missing = fmt.Sprintf("%s data for %.0f%% of the hour", which, 100*lo/hi)
			} else {
				h.NANDBytes, h.HostBytes = nv, hv
			}
		}
		hours = append(hours, h)
	}
	if !seen {
		return nil, fmt.Errorf("run %s: no NAND/host counters for device %s", run.ID, device)
	}
	return hours, nil
}

// rounds is the query range of a run's rounds: one step per round, the
// first ending one round after the start.
func rounds(run Run, round time.Duration) (v1.Range, error) {
	if round < time.Second {
		return v1.Range{}, fmt.Errorf("round %s: at least 1s", round)
	}
	if d := run.End.Sub(run.Start); run.Start.Unix() <= 0 || d <= 0 || d == time.Duration(math.MaxInt64) {
		// A mark that is missing, not a number or infinite: time.Sub
		// saturates, and "lasted -2562047h47m16s" or "lasted 0s" would
		// be a figure that is not true.
		return v1.Range{}, fmt.Errorf("run %s has no span walab can read (start %s, end %s): its start or end mark is missing, not a number or infinite", run.ID, stamp(run.Start), stamp(run.End))
	}
	first := run.Start.Add(round)
	if first.After(run.End) {
		return v1.Range{}, fmt.Errorf("run %s lasted %s: less than one round (%s)", run.ID, run.End.Sub(run.Start).Round(time.Second), round)
	}
	return v1.Range{Start: first, End: run.End, Step: round}, nil
}

// namedRounds is rounds for a device or an array (what) called name, which
// must be a label value.
func namedRounds(what, name string, run Run, round time.Duration) (v1.Range, error) {
	if !model.LabelValue(name).IsValid() || name == "" {
		return v1.Range{}, fmt.Errorf("bad %s %q", what, name)
	}
	return rounds(run, round)
}

// roundAt is the table row of the round ending at at, and its key in
// perRound's answers.
func roundAt(run Run, at time.Time, round time.Duration) (int64, Hour) {
	return int64(model.TimeFromUnixNano(at.UnixNano())), Hour{Hour: int((at.Sub(run.Start) + round/2) / round), At: at}
}

// perRound runs a range query of one series and returns its values by
// timestamp (milliseconds).
func (s Source) perRound(ctx context.Context, q string, r v1.Range) (map[int64]float64, error) {
	res, _, _, err := s.API.QueryRange(ctx, q, r)
	if err != nil {
		return nil, err
	}
	out := map[int64]float64{}
	if m, ok := res.(model.Matrix); ok && len(m) > 1 {
		return nil, fmt.Errorf("query %s: %d series (%s), want one: walab does not pick one of them", q, len(m), seriesNames(m))
	} else if ok {
		for _, ss := range m {
			for _, p := range ss.Values {
				out[int64(p.Timestamp)] = float64(p.Value)
			}
		}
	}
	return out, nil
}

// stamp is t in UTC, or "none" for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return t.UTC().Format(time.RFC3339)
}
