package runner

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/workload"
)

// Metrics are loadgen's Prometheus series (docs/metrics.md, "loadgen").
// One Metrics serves all targets of a process; each target is a label value.
type Metrics struct {
	RunInfo      *prometheus.GaugeVec
	RunStart     *prometheus.GaugeVec
	Txns         *prometheus.CounterVec
	Duration     *prometheus.HistogramVec
	Statements   *prometheus.CounterVec
	Errors       *prometheus.CounterVec
	Reconnects   *prometheus.CounterVec
	ConnFailures *prometheus.CounterVec
	Active       *prometheus.GaugeVec
	TargetRate   *prometheus.GaugeVec
	IOBytes      *prometheus.CounterVec
}

// DurationBuckets are the classic buckets, 0.5 ms .. 60 s: OLTP point selects
// sit at the bottom, TPC-C Stock-Level and stalls from SSD GC at the top.
var DurationBuckets = []float64{
	0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 60,
}

const ns = promql.Prefix + "_loadgen_"

// NewMetrics creates and registers the series on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		RunInfo:  gaugeVec(promql.LoadgenRunInfo, "Constant 1 while a run is going on; its labels tell runs apart (join on target).", "run_id", "workload", "scenario", "target"),
		RunStart: gaugeVec(ns+"run_start_timestamp_seconds", "Unix time the current run's measurement started.", "target"),
		Txns:     counterVec(promql.LoadgenTransactions, "Transactions by type and outcome: committed, user_rollback (a workload-intended rollback, a success), retried (deadlock or lock wait timeout, run again), error (given up).", "target", "workload", "type", "outcome"),
		Duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:                            ns + "transaction_duration_seconds",
			Help:                            "Latency of completed transactions from their intended start (includes queueing under --rate).",
			Buckets:                         DurationBuckets,
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  160,
			NativeHistogramMinResetDuration: 0,
		}, []string{"target", "workload", "type"}),
		Statements:   counterVec(ns+"statements_total", "SQL statements sent, by kind: read (SELECT), write (INSERT/UPDATE/DELETE), other (transaction control: BEGIN, SET autocommit, COMMIT, ROLLBACK).", "target", "kind"),
		Errors:       counterVec(ns+"errors_total", "Failed transaction attempts by error class: deadlock, lock_wait_timeout, connection, canceled, other.", "target", "class"),
		Reconnects:   counterVec(ns+"reconnects_total", "Connections re-established after a connection error.", "target"),
		ConnFailures: counterVec(ns+"connection_failures_total", "Failed connection attempts (the server away or refusing); a target unreachable for long shows here, not in transactions.", "target"),
		Active:       gaugeVec(promql.LoadgenActiveTerminals, "Terminals (client threads) currently running.", "target"),
		TargetRate:   gaugeVec(promql.LoadgenTargetRate, "Configured transaction rate limit in transactions per second (0 = unlimited).", "target"),
		IOBytes:      counterVec(ns+"io_bytes_total", "Bytes an I/O workload (fileio) read or wrote, by op: the host side of a device WA measurement without a database.", "target", "op"),
	}
	reg.MustRegister(m.RunInfo, m.RunStart, m.Txns, m.Duration, m.Statements, m.Errors, m.Reconnects, m.ConnFailures, m.Active, m.TargetRate, m.IOBytes)
	return m
}

// gaugeVec is a gauge of name with help over labels.
func gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
}

// counterVec is a counter of name with help over labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// typeObservers are the series one transaction type of one target touches,
// resolved once so the hot path does no label lookups.
type typeObservers struct {
	out [nOutcomes]prometheus.Counter
	dur prometheus.Observer
}

type targetObservers struct {
	types                 []typeObservers
	reads, writes, others prometheus.Counter
	readBytes, wroteBytes prometheus.Counter
	reconnects            prometheus.Counter
	connFails             prometheus.Counter
	errs                  map[string]prometheus.Counter
	active                prometheus.Gauge
}

// forTarget resolves a target's series; io adds the byte counters (an I/O
// workload's; a SQL workload has none rather than a 0 that means nothing).
func (m *Metrics) forTarget(target, workload string, types []string, io bool) *targetObservers {
	if m == nil {
		return nil
	}
	o := &targetObservers{
		reads:      m.Statements.WithLabelValues(target, "read"),
		writes:     m.Statements.WithLabelValues(target, "write"),
		others:     m.Statements.WithLabelValues(target, "other"),
		reconnects: m.Reconnects.WithLabelValues(target),
		connFails:  m.ConnFailures.WithLabelValues(target),
		active:     m.Active.WithLabelValues(target),
		errs:       map[string]prometheus.Counter{},
	}
	if io {
		o.readBytes, o.wroteBytes = m.IOBytes.WithLabelValues(target, "read"), m.IOBytes.WithLabelValues(target, "write")
	}
	for _, c := range []string{"deadlock", "lock_wait_timeout", "connection", "canceled", "other"} {
		o.errs[c] = m.Errors.WithLabelValues(target, c)
	}
	for _, t := range types {
		var to typeObservers
		for i, out := range outcomes {
			to.out[i] = m.Txns.WithLabelValues(target, workload, t, out)
		}
		to.dur = m.Duration.WithLabelValues(target, workload, t)
		o.types = append(o.types, to)
	}
	return o
}

// PrepareMetrics are a load's progress (prepare), per target.
type PrepareMetrics struct {
	rows, expected *prometheus.GaugeVec
}

// NewPrepareMetrics registers the prepare progress gauges on reg.
func NewPrepareMetrics(reg prometheus.Registerer) *PrepareMetrics {
	m := &PrepareMetrics{
		rows:     gaugeVec(ns+"prepare_rows", "Rows (or the workload's unit) the running prepare has loaded so far; a unit rolled back and retried is taken out again.", "target"),
		expected: gaugeVec(ns+"prepare_expected_rows", "Rows the running prepare will have loaded when done (the ETA is (expected - loaded) / rate(loaded)).", "target"),
	}
	reg.MustRegister(m.rows, m.expected)
	return m
}

// Observe is a progress event of target's prepare.
func (m *PrepareMetrics) Observe(target string, e workload.ProgressEvent) {
	m.rows.WithLabelValues(target).Set(float64(e.Rows))
	m.expected.WithLabelValues(target).Set(float64(max(e.TotalRows, e.Rows)))
}
