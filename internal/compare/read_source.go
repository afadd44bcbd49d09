package compare

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// Source reads runs and counters from a Prometheus HTTP API: the reading
// layer's one type (doc.go).
type Source struct {
	API v1.API
	// Resolution of the run search (the run's start and end are known to
	// within one step). Default 1m.
	Step time.Duration
	// Instance, when set, reads the drive's series of this instance only:
	// a device name on several hosts is refused without it (read_hosts.go).
	Instance string
}

var runIDRe = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// FindRun finds a run's start and end: the first and last time
// walab_loadgen_run_info{run_id=id} (or walab_experiment_run_info, a fio
// run of walab experiment) had a sample, searching [from, to].
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
	// walab experiment marks runs of tools without such a series (fio) with
	// walab_experiment_run_info.
	q := fmt.Sprintf(`max by (run_id, scenario) (timestamp(`+promql.LoadgenRunInfo+`{run_id=%[1]q}) or timestamp(`+promql.ExperimentRunInfo+`{run_id=%[1]q}))`, id)
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
		return Run{}, fmt.Errorf("run %s: no "+promql.LoadgenRunInfo+" or "+promql.ExperimentRunInfo+" between %s and %s", id, from.Format(time.RFC3339), to.Format(time.RFC3339))
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

// instant is an instant query's vector at at (nil for another type).
func (s Source) instant(ctx context.Context, q string, at time.Time) (model.Vector, error) {
	res, _, _, err := s.API.Query(ctx, q, at)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q, err)
	}
	v, _ := res.(model.Vector)
	return v, nil
}

// firstScalar is the first value of an instant query at at, nil when the
// answer is empty or not a finite number.
func (s Source) firstScalar(ctx context.Context, q string, at time.Time) (*float64, error) {
	v, err := s.instant(ctx, q, at)
	return finiteFirst(v), err
}

// finiteFirst is v's first value, nil when v is empty or the value is not
// a finite number.
func finiteFirst(v model.Vector) *float64 {
	if len(v) == 0 {
		return nil
	}
	x := float64(v[0].Value)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
