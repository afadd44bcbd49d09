// Package tpcc: the Go API (moved from docs/tpcc.md).
//
// # Go API (for the loadgen binary)
//
//	cfg, err := benchmarksql.Load("props.conf") // cfg.Warnings: log them
//	db, err := sql.Open("mysql", cfg.DSN())
//	w, err := tpcc.New(cfg.TPCCOptions())
//	err = w.Prepare(ctx, db, workload.PrepareOptions{Workers: cfg.LoadWorkers, Progress: …})
//	err = w.Init(ctx, db) // before a run: fail fast on a missing or incomplete load
//	// runner: cfg.Terminals, cfg.RunMins / cfg.RunTxnsPerTerminal, cfg.LimitTxnsPerMin
//	results, err := w.Check(ctx, db) // or w.CheckWarehouses(ctx, db, 1, 10)
//
// `tpcc.Options` can also be built directly from loadgen flags:
//
// * `Warehouses`, `TerminalWarehouseFixed`, `Weights`;
// * `KeyingTimes`, `ThinkTimes` and their multipliers;
// * `Seed`, for a reproducible load and C-Run.
package tpcc
