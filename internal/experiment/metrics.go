package experiment

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/promql"
)

// Metrics are the experiment's progress as Prometheus metrics. A nil
// *Metrics records nothing.
type Metrics struct {
	mu         sync.Mutex
	planned    prometheus.Gauge
	done       prometheus.Gauge
	phase      *prometheus.GaugeVec
	left       prometheus.Gauge
	wa         prometheus.Gauge
	fp         *prometheus.GaugeVec
	runWA      *prometheus.GaugeVec
	runInfo    *prometheus.GaugeVec // metrics_run.go
	doneSoFar  int
	name       string
	once       sync.Once
	registerWA func()
}

// NewMetrics registers the metrics of experiment name on reg.
func NewMetrics(reg prometheus.Registerer, name string) *Metrics {
	m := &Metrics{name: name,
		planned: prometheus.NewGauge(prometheus.GaugeOpts{Name: promql.Prefix + "_experiment_steps",
			Help: "Steps of the experiment's flattened plan (commands, checks, runs, compare, report)."}),
		done: prometheus.NewGauge(prometheus.GaugeOpts{Name: promql.Prefix + "_experiment_steps_done",
			Help: "Steps of the experiment finished so far, including those done before a resume."}),
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: promql.Prefix + "_experiment_phase_info",
			Help: "1 for the phase and run the experiment is in now (one series at a time)."}, []string{"experiment", "phase", "run"}),
		left: prometheus.NewGauge(prometheus.GaugeOpts{Name: promql.Prefix + "_experiment_remaining_seconds",
			Help: "Planned run time left in the experiment (runs only: a lower bound)."}),
		wa: prometheus.NewGauge(prometheus.GaugeOpts{Name: promql.Prefix + "_experiment_last_hourly_write_amplification",
			Help: "The drive's 1 h write amplification as the exporter reported it at the last progress line; absent until read."}),
		fp: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: promql.Prefix + "_experiment_run_fingerprint_info",
			Help: "1 per run of the experiment: the drive and software it ran on (full fingerprint in runs/<run_id>/fingerprint-*.json)."},
			[]string{"experiment", "run_id", "run", "scenario", "model", "firmware", "serial", "kernel", "mysql_version"}),
		runWA: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: promql.Prefix + "_experiment_run_write_amplification",
			Help: "NAND bytes / host bytes of the drive between a run's start and end fingerprints; absent when a counter is missing."},
			[]string{"experiment", "run_id", "run", "scenario"}),
	}
	m.runInfo = newRunInfo()
	reg.MustRegister(m.planned, m.done, m.phase, m.left, m.fp, m.runWA, m.runInfo)
	// The WA gauge is registered on first use: absent, not 0, until read.
	m.registerWA = func() { reg.MustRegister(m.wa) }
	return m
}

func (m *Metrics) setTotal(n int) {
	if m == nil {
		return
	}
	m.planned.Set(float64(n))
}

func (m *Metrics) stepDone() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.doneSoFar++
	m.done.Set(float64(m.doneSoFar))
	m.mu.Unlock()
}

func (m *Metrics) setStep(it plan.Item, left time.Duration) {
	if m == nil {
		return
	}
	run := ""
	if it.Run != nil {
		run = it.Run.Name
	}
	m.phase.Reset()
	m.phase.WithLabelValues(m.name, it.Phase, run).Set(1)
	m.left.Set(left.Seconds())
}

func (m *Metrics) setLeft(left time.Duration) {
	if m == nil {
		return
	}
	m.left.Set(left.Seconds())
}

func (m *Metrics) setWA(v float64) {
	if m == nil {
		return
	}
	m.once.Do(m.registerWA)
	m.wa.Set(v)
}

func (m *Metrics) fingerprint(p *plan.Plan, runID string, it plan.Item, f *fingerprint.Fingerprint) {
	if m == nil {
		return
	}
	var model, fw, serial, version string
	if f.Drive != nil {
		model, fw, serial = f.Drive.Model, f.Drive.Firmware, f.Drive.Serial
	}
	var versions []string
	for _, my := range f.MySQL {
		if my.Version != "" && !slices.Contains(versions, my.Version) {
			versions = append(versions, my.Version)
		}
	}
	version = strings.Join(versions, ",")
	m.fp.WithLabelValues(p.Name, runID, it.Run.Name, it.Run.ScenarioLabel(), model, fw, serial, f.Host.Kernel, version).Set(1)
}

func (m *Metrics) runDone(p *plan.Plan, r *state.RunRecord) {
	if m == nil || r.WA == nil {
		return
	}
	m.runWA.WithLabelValues(p.Name, r.RunID, r.Run, r.Scenario).Set(*r.WA)
}
