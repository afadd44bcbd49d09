package compare

// Check statuses.
const (
	Pass    = "pass"
	Fail    = "FAIL"
	Unknown = "unknown" // the data to decide is not in Prometheus; does not invalidate
	Warn    = "warn"    // the WA verdict stands; a figure the check names has no interval
)

// Check is one comparability question and its answer with the numbers.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// Verdict is the judgement of a comparison.
type Verdict struct {
	Valid      bool     `json:"valid"`
	Reasons    []string `json:"reasons,omitempty"` // the failed checks, in one line each
	Checks     []Check  `json:"checks"`
	WA         Interval `json:"wa_change"`         // relative change of WA, candidate vs baseline
	Throughput Interval `json:"throughput_change"` // committed transactions per round
	TpmC       Interval `json:"tpmc_change"`       // New-Order per round (TPC-C)
	// P95 and P99 are the change of the mean of the per-round latency
	// quantiles (the table's figure is the quantile of the whole window).
	P95 Interval `json:"p95_change"`
	P99 Interval `json:"p99_change"`
	// ThroughputRounds and P99Rounds are the throughput and p99 changes
	// with the interval from the spread of rounds within each run: never
	// printed (one run each measures the machine's load, not the setting;
	// docs/compare.md), kept for the pipeline's error-rate bench, which
	// measures how often that interval misleads.
	ThroughputRounds Interval `json:"throughput_rounds_change"`
	P99Rounds        Interval `json:"p99_rounds_change"`
}
