package workload

import (
	"context"
	"database/sql"
	"math/rand/v2"
)

// SQL is a benchmark on a database. The runner wraps it: every terminal
// holds a connection of the target's pool, which the runner opens, hands
// to the terminal's transactions and reopens after a loss.
type SQL interface {
	Info
	// Prepare creates and loads the schema with opts.Workers parallel loaders.
	// It resumes a half-loaded schema or refuses it with a clear error.
	Prepare(ctx context.Context, db *sql.DB, opts PrepareOptions) error
	// Check verifies the loaded (and run) database; one result per condition.
	Check(ctx context.Context, db *sql.DB) ([]CheckResult, error)
	// Cleanup drops what Prepare created.
	Cleanup(ctx context.Context, db *sql.DB) error
	// NewTerminal returns the state of one client terminal (thread). id is
	// 0-based; rng is the terminal's own deterministic source.
	NewTerminal(id int, rng *rand.Rand) SQLTerminal
}

// SQLTerminal is one client's sequence of transactions on a database. Not
// used concurrently.
type SQLTerminal interface {
	Mix
	// Run executes one transaction of that type on conn. A retryable error
	// (deadlock, lock wait timeout) or a connection error is returned as is;
	// the runner classifies it with the driver package and retries or reconnects.
	Run(ctx context.Context, conn *sql.Conn, txType string) (Result, error)
}

// SQLInitializer is an SQL workload that reads what a run needs from the
// loaded database before the terminals start (tpcc: the warehouse count
// and C-Load constants), so a run against an unprepared database fails
// before it starts.
type SQLInitializer interface {
	Init(ctx context.Context, db *sql.DB) error
}

// OnDB gives an SQL workload's phases on db the shape of a core
// workload's Stages, for the commands that run them.
func OnDB(w SQL, db *sql.DB) Stages { return sqlStages{w, db} }

type sqlStages struct {
	w  SQL
	db *sql.DB
}

func (s sqlStages) Prepare(ctx context.Context, o PrepareOptions) error {
	return s.w.Prepare(ctx, s.db, o)
}
func (s sqlStages) Check(ctx context.Context) ([]CheckResult, error) { return s.w.Check(ctx, s.db) }
func (s sqlStages) Cleanup(ctx context.Context) error                { return s.w.Cleanup(ctx, s.db) }
