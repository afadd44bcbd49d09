package compare

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Source reads runs and counters from a Prometheus HTTP API.
type Source struct {
	API v1.API
	// Resolution of the run search (the run's start and end are known to
	// within one step). Default 1m.
	Step time.Duration
}

var runIDRe = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// FindRun finds a run's start and end: the first and last time
// walab_loadgen_run_info{run_id=id} had a sample, searching [from, to].
func (s Source) FindRun(ctx context.Context, id string, from, to time.Time) (Run, error) {
	if !runIDRe.MatchString(id) {
		return Run{}, fmt.Errorf("run id %q: only letters, digits and _.:- allowed", id)
	}
	step := s.Step
	if step <= 0 {
		step = time.Minute
	}
	// timestamp() gives each sample's own time, so the run's edges are exact
	// even though a series stays visible for the lookback after its last sample.
	q := fmt.Sprintf(`max by (run_id, scenario) (timestamp(walab_loadgen_run_info{run_id=%q}))`, id)
	// Prometheus caps a range query at 11000 points: widen the step for long searches.
	if n := to.Sub(from) / step; n > 10000 {
		step = to.Sub(from) / 10000
	}
	res, _, _, err := s.API.QueryRange(ctx, q, v1.Range{Start: from, End: to, Step: step})
	if err != nil {
		return Run{}, fmt.Errorf("find run %s: %w", id, err)
	}
	m, ok := res.(model.Matrix)
	if !ok || len(m) == 0 {
		return Run{}, fmt.Errorf("run %s: no walab_loadgen_run_info between %s and %s", id, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	if len(m) > 1 {
		return Run{}, fmt.Errorf("run %s: %d scenarios for one run id", id, len(m))
	}
	first, last := math.Inf(1), math.Inf(-1)
	for _, p := range m[0].Values {
		first = math.Min(first, float64(p.Value))
		last = math.Max(last, float64(p.Value))
	}
	return Run{
		ID:       id,
		Scenario: string(m[0].Metric["scenario"]),
		Start:    unixTime(first),
		End:      unixTime(last),
	}, nil
}

func unixTime(sec float64) time.Time {
	return time.UnixMilli(int64(math.Round(sec * 1000))).UTC()
}

// Coverage is the least share of an hour that a counter must cover,
// relative to the other counter's samples, for the hour to count: an
// increase() over a few minutes of samples is an extrapolation, not the
// hour's writes.
const Coverage = 0.9

// Hourly returns the run's hourly table for one device: hour h covers
// [start + (h-1)h, start + h·1h]; hours that end after the run are left out.
// Every hour of the run is in the table: one without NAND or host data, or
// with one counter sampled for less than Coverage of the other's samples,
// has Missing set (never NAND 0).
func (s Source) Hourly(ctx context.Context, run Run, device string) ([]Hour, error) {
	if !model.LabelValue(device).IsValid() || device == "" {
		return nil, fmt.Errorf("bad device %q", device)
	}
	first := run.Start.Add(time.Hour)
	if first.After(run.End) {
		return nil, fmt.Errorf("run %s lasted %s: less than one hour", run.ID, run.End.Sub(run.Start).Round(time.Second))
	}
	r := v1.Range{Start: first, End: run.End, Step: time.Hour}
	get := func(fn, metric string) (map[int64]float64, error) {
		q := fmt.Sprintf(`sum(%s(%s{device=%q}[1h]))`, fn, metric, device)
		res, _, _, err := s.API.QueryRange(ctx, q, r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", metric, err)
		}
		out := map[int64]float64{}
		if m, ok := res.(model.Matrix); ok {
			for _, ss := range m {
				for _, p := range ss.Values {
					out[int64(p.Timestamp)] = float64(p.Value)
				}
			}
		}
		return out, nil
	}
	const nandMetric, hostMetric = "walab_nvme_media_written_bytes_total", "walab_nvme_host_written_bytes_total"
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
	for at := first; !at.After(run.End); at = at.Add(time.Hour) {
		k := int64(model.TimeFromUnixNano(at.UnixNano()))
		h := Hour{Hour: int(at.Sub(run.Start).Round(time.Minute) / time.Hour), At: at}
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
