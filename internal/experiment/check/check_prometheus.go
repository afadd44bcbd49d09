package check

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/promql"
)

// checkPrometheus: Prometheus has the exporter's identity series for the
// device from a recent scrape, and the WA sampler's last sample is recent.
func (e *Env) checkPrometheus(ctx context.Context) (string, error) {
	client, err := api.NewClient(api.Config{Address: e.Plan.Prometheus})
	if err != nil {
		return "", err
	}
	papi := v1.NewAPI(client)
	now := time.Now()
	ask := func(q string) (float64, error) {
		v, _, _, err := papi.Query(ctx, q, now)
		if err != nil {
			return 0, fmt.Errorf("Prometheus %s: %w", e.Plan.Prometheus, err)
		}
		vec, ok := v.(model.Vector)
		if !ok || len(vec) == 0 {
			return 0, fmt.Errorf("Prometheus %s has no %s", e.Plan.Prometheus, q)
		}
		return float64(vec[0].Value), nil
	}
	dev := fmt.Sprintf("{device=%q}", e.Plan.Device)
	scraped, err := ask("max(timestamp(" + promql.NVMeInfo + dev + "))")
	if err != nil {
		return "", fmt.Errorf("the exporter is not scraped: %w", err)
	}
	age := now.Sub(time.Unix(int64(scraped), 0))
	if age > 2*time.Minute {
		return "", fmt.Errorf("last scrape of "+promql.NVMeInfo+"%s is %s old", dev, age.Round(time.Second))
	}
	sample, err := ask("max(" + promql.NVMeWALastSample + dev + ")")
	if err != nil {
		return "", fmt.Errorf("the WA sampler produces no values: %w", err)
	}
	sAge := now.Sub(time.Unix(int64(sample), 0))
	if sample <= 0 || sAge > 5*time.Minute {
		return "", fmt.Errorf("the WA sampler's last sample is %s old", sAge.Round(time.Second))
	}
	return fmt.Sprintf("exporter scraped %s ago; WA sampler's last sample %s ago", age.Round(time.Second), sAge.Round(time.Second)), nil
}

var prometheusCheck = checkKind{
	needs: needs{prometheus: true, device: true},
	run: func(e *Env, ctx context.Context, _ plan.Check, _ *plan.Run) (string, error) {
		return e.checkPrometheus(ctx)
	},
}

func init() { register("prometheus", prometheusCheck) }
