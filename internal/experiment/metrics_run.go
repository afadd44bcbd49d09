package experiment

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/promql"
)

// RunInfoMetric marks a run whose tool publishes no
// walab_loadgen_run_info of its own (fio): walab compare finds a run's
// start and end by either series.
var RunInfoMetric = promql.ExperimentRunInfo

func newRunInfo() *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: RunInfoMetric,
		Help: "1 while a run of the experiment whose tool publishes no " + promql.LoadgenRunInfo + " (fio) is going on: its first and last samples are the run's span for walab compare. At most one series at a time."},
		[]string{"experiment", "run_id", "run", "scenario", "tool"})
}

// runSpan publishes the run's info series until the returned function is
// called.
func (m *Metrics) runSpan(p *plan.Plan, it plan.Item, runID string) func() {
	if m == nil {
		return func() {}
	}
	labels := []string{p.Name, runID, it.Run.Name, it.Run.ScenarioLabel(), "fio"}
	m.runInfo.WithLabelValues(labels...).Set(1)
	return func() { m.runInfo.DeleteLabelValues(labels...) }
}
