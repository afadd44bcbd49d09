// Package workload is the contract between the benchmarks (TPC-C, the
// sysbench-style OLTP scripts) and the runner that drives them. A workload
// knows its schema and its transactions; the runner owns connections,
// reconnects, retries, pacing, metrics and reports.
package workload

import (
	"context"
	"database/sql"
	"math/rand/v2"
)

// Workload is one benchmark.
type Workload interface {
	// Name is the workload label in metrics and reports ("tpcc", "oltp_read_write").
	Name() string
	// Prepare creates and loads the schema with opts.Workers parallel loaders.
	// It resumes a half-loaded schema or refuses it with a clear error.
	Prepare(ctx context.Context, db *sql.DB, opts PrepareOptions) error
	// Check verifies the loaded (and run) database; one result per condition.
	Check(ctx context.Context, db *sql.DB) ([]CheckResult, error)
	// Cleanup drops what Prepare created.
	Cleanup(ctx context.Context, db *sql.DB) error
	// NewTerminal returns the state of one client terminal (thread). id is
	// 0-based; rng is the terminal's own deterministic source.
	NewTerminal(id int, rng *rand.Rand) Terminal
	// TxTypes lists the transaction type labels this workload can report.
	TxTypes() []string
}

// Terminal is one client's sequence of transactions. Not used concurrently.
type Terminal interface {
	// Next picks the next transaction type (by the workload's mix).
	Next() string
	// Run executes one transaction of that type on conn. A retryable error
	// (deadlock, lock wait timeout) or a connection error is returned as is;
	// the runner classifies it with the driver package and retries or reconnects.
	Run(ctx context.Context, conn *sql.Conn, txType string) (Result, error)
	// ThinkTime and KeyingTime are the pauses around a transaction when the
	// workload enables them (TPC-C keying/think times); zero otherwise.
	KeyingTime(txType string) float64
	ThinkTime(txType string) float64
}

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
