// Package workload is the contract between the benchmarks and the runner
// that drives them. The core (Workload, Terminal) names no database: the
// client-side tests (sysbench cpu, memory, fileio) are workloads as they
// are. A benchmark on a database (TPC-C, the sysbench-style OLTP scripts)
// is the SQL extension (sql.go), which the runner wraps: it owns the
// connections, reconnects, retries, pacing, metrics and reports.
package workload

import (
	"context"
	"io"
	"math/rand/v2"
)

// Workload is one benchmark that runs on the client alone.
type Workload interface {
	Info
	// NewTerminal returns the state of one client terminal (thread). id is
	// 0-based; rng is the terminal's own deterministic source.
	NewTerminal(id int, rng *rand.Rand) Terminal
}

// Info is what every workload, core or SQL, tells the runner about itself.
type Info interface {
	// Name is the workload label in metrics and reports ("tpcc", "oltp_read_write").
	Name() string
	// TxTypes lists the transaction type labels this workload can report.
	TxTypes() []string
}

// Terminal is one client's sequence of transactions. Not used concurrently.
type Terminal interface {
	Mix
	// Run executes one transaction (event) of that type.
	Run(ctx context.Context, txType string) (Result, error)
}

// Mix is how a terminal picks and paces its transactions.
type Mix interface {
	// Next picks the next transaction type (by the workload's mix).
	Next() string
	// ThinkTime and KeyingTime are the pauses around a transaction when the
	// workload enables them (TPC-C keying/think times); zero otherwise.
	KeyingTime(txType string) float64
	ThinkTime(txType string) float64
}

// Stages are the phases around run of a core workload that has them
// (fileio's file set); its Spec.Phases names them.
type Stages interface {
	// Prepare creates what the run needs, resuming or refusing a
	// half-prepared state with a clear error.
	Prepare(ctx context.Context, opts PrepareOptions) error
	// Check verifies what Prepare made; one result per condition.
	Check(ctx context.Context) ([]CheckResult, error)
	// Cleanup removes what Prepare made, and nothing else.
	Cleanup(ctx context.Context) error
}

// Optional interfaces a workload (core or SQL) may implement.
type (
	// Initializer is a core workload that opens or reads what a run needs
	// before the terminals start (fileio: its files), so a run on an
	// unprepared set fails before it starts.
	Initializer interface {
		Init(ctx context.Context) error
	}
	// Describer prints the option block sysbench prints before a run of
	// the workload (fileio's file set and mode, cpu's prime limit).
	Describer interface {
		Describe(w io.Writer)
	}
	// Headed workloads open the summary with their own figures (sysbench
	// cpu's "events per second") instead of SQL statistics.
	Headed interface {
		SummaryHead(events uint64, seconds float64) string
	}
	// RunOptioner gives run settings from the workload's own flags (tpcc:
	// --terminals, --limit-txns-per-min); they win over the target file's
	// and the runner flags.
	RunOptioner interface {
		RunOptions() RunOptions
	}
)

// Outcome of a transaction that did not error.
type Outcome int

const (
	Committed    Outcome = iota
	UserRollback         // TPC-C New-Order's 1% rollback: a success, not an error
)

// Result of one transaction.
type Result struct {
	Outcome Outcome
	// Statements by kind, for sysbench-style qps read/write/other (for an
	// I/O workload: read and write requests, and fsyncs as other).
	Reads, Writes, Other int
	// ReadBytes and WrittenBytes moved by the event (I/O workloads).
	ReadBytes, WrittenBytes int64
}

// PrepareOptions configure loading.
type PrepareOptions struct {
	Workers  int
	Progress func(ProgressEvent) // may be nil
}

// ProgressEvent reports loading progress.
type ProgressEvent struct {
	Rows, TotalRows int64
	Unit            string // what Rows counts; "" is rows
}

// CheckResult is one consistency condition.
type CheckResult struct {
	Name   string // e.g. "3.3.2.1 W_YTD = sum(D_YTD)"
	Passed bool
	Detail string // why it failed, or what was checked
}
