package compare

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
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

// Hourly returns the run's hourly table for one device: hour h covers
// [start + (h-1)h, start + h·1h]; hours that end after the run are left out.
func (s Source) Hourly(ctx context.Context, run Run, device string) ([]Hour, error) {
	if !model.LabelValue(device).IsValid() || device == "" {
		return nil, fmt.Errorf("bad device %q", device)
	}
	first := run.Start.Add(time.Hour)
	if first.After(run.End) {
		return nil, fmt.Errorf("run %s lasted %s: less than one hour", run.ID, run.End.Sub(run.Start).Round(time.Second))
	}
	r := v1.Range{Start: first, End: run.End, Step: time.Hour}
	get := func(metric string) (map[int64]float64, error) {
		q := fmt.Sprintf(`sum(increase(%s{device=%q}[1h]))`, metric, device)
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
	nand, err := get("walab_nvme_media_written_bytes_total")
	if err != nil {
		return nil, err
	}
	host, err := get("walab_nvme_host_written_bytes_total")
	if err != nil {
		return nil, err
	}
	keys := make([]int64, 0, len(host))
	for k := range host {
		keys = append(keys, k)
	}
	for k := range nand {
		if _, ok := host[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	hours := make([]Hour, 0, len(keys))
	for _, k := range keys {
		at := model.Time(k).Time()
		hours = append(hours, Hour{
			Hour:      int(at.Sub(run.Start).Round(time.Minute) / time.Hour),
			NANDBytes: nand[k],
			HostBytes: host[k],
			At:        at,
		})
	}
	if len(hours) == 0 {
		return nil, fmt.Errorf("run %s: no NAND/host counters for device %s", run.ID, device)
	}
	return hours, nil
}
