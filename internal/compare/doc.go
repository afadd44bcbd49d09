// Package compare judges whether a placement technique changed a drive's
// write amplification: seed 000's hourly table (result_WA.txt: NAND MB,
// host MB, WA per hour) for two runs read from Prometheus, with the checks
// that say whether the comparison can be trusted. Runs may be days apart:
// each is aligned by rounds since its own start.
//
// The pipeline, Compare (compare.go), in three layers whose files are
// named by layer (layering_test.go holds them apart):
//
//  1. Reading, read_*.go: Source, the package's one reader of the store's
//     HTTP API. It finds each run (FindRun: the first and last sample of
//     walab_loadgen_run_info or walab_experiment_run_info; or a time
//     range), builds its per-round table (read_run.go picks Table, a
//     device's, or ArrayTable, an array's: NAND and host bytes per round,
//     a round without trustworthy figures marked Missing, never 0), and
//     reads the facts of the compared rounds (Facts, read_facts_*.go by
//     family: drive (identity, fill, wear, placement), targets (offered
//     load, MySQL settings), block layer (iostat, md sync), rounds
//     (throughput and latency per round)). The store's warnings are kept
//     (a partial answer makes the comparison NOT VALID). Reads run one
//     way (layering_test.go's readOrder): no read file calls back into
//     one that calls it.
//  2. Judging, judge_*.go with options.go and result.go: plain values in,
//     figures and checks out, no Prometheus import. Its files build on
//     each other in one order (layering_test.go's judgeOrder): per-round
//     tables, intervals and steady state at the bottom; the judged
//     vocabulary above them (Verdict and Check, judge_verdict.go;
//     RunFacts, judge_facts.go); then Options, Result and the window
//     selection; the comparability checks by family (judge_checks_*.go:
//     the rounds, the drive, the load); on top their one list and judge,
//     which runs it (judge_checks.go). Steady state (SNIA's
//     window or fio's criteria) picks each run's compared rounds; the WA of
//     those rounds, their reduction, the batch-means intervals of WA,
//     throughput, tpmC and latency, and the comparability checks make the
//     Verdict (VALID, or NOT VALID and why).
//  3. Rendering, render_*.go, one file per output: text (Result.Write),
//     CSV (WriteCSV), JSON (Result.WriteJSON), PNG (WritePNG) and HTML
//     (Result.WriteHTML). Labels read from the store are sanitized before
//     they reach a terminal or a CSV cell.
//
// Options (options.go) select the runs, the device or array, the rounds
// and the checks' tolerances; DefaultOptions are what a zero field means.
package compare
