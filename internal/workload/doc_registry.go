// Package workload: how workloads register themselves (moved from docs/loadgen.md).
//
// # Workloads are registered
//
// Each workload registers itself (`workload.Register` in its package's `init`)
// with its name, its phases, its flags (a `workload.FlagSet`: types, defaults
// and ranges, from which the command line binds kingpin flags, derives the
// list of on/off flags for sysbench's `--flag=on` spelling and checks ranges
// such as `--percentile` within 1..100), a factory, and optionally a reader of
// target files (tpcc: BenchmarkSQL props files, in `internal/benchmarksql`,
// which maps props keys onto the workload's options and the run's: terminals,
// `runMins`, `runTxnsPerTerminal`, `limitTxnsPerMin`; a runner flag given by
// the user wins over the file). A workload's flags are those of its command:
// `loadgen help tpcc run` lists them. The core contract names no database:
// a `workload.Workload` makes terminals whose `Run(ctx, type)` is one event
// (cpu, memory, fileio run on the client alone, and fileio's prepare, check
// and cleanup are its `Stages`). A benchmark on a database is the SQL
// extension, `workload.SQL` (tpcc, the OLTP scripts): its phases take the
// target's `*sql.DB` and its terminals' `Run` the connection the runner opened
// for them; the factory says which of the two it builds. The report style is
// a value of the registration (`Report`: fileio's I/O lines, or tpcc's
// headline type, New-Order for tpmC, with BenchmarkSQL's summary). Small
// optional interfaces remain for what only some workloads have: `Initializer`
// and `SQLInitializer` (open or read what a run needs before the terminals
// start: fileio's files, tpcc's loaded database), `Describer` and `Headed`
// (sysbench's option block before a run and figures atop the summary),
// `RunOptioner` (run settings from the workload's own flags; tpcc
// `--terminals`), and `io.Closer` on a terminal, which the runner calls for
// every terminal it opened. `loadgen/main.go` links
// the workloads in with blank imports; the command-line package imports none
// (a test checks it with `go list -deps`, and that imports flow workload →
// driver → runner → loadgen).
package workload
