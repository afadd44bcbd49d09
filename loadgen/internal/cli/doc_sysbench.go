// Package cli: sysbench's command lines as loadgen takes them, in detail, with loadgen cpu and memory beside sysbench's (docs/loadgen.md summarises them).
//
// The report lines and summary are sysbench 1.0.20's to the byte (the
// latency block right-aligned as sysbench's %39.2f):
// TestLoadgenPrintsSysbenchFormat compares a run with a golden masked
// (numbers only) from the real sysbench's run of the same line, and
// TestSysbenchFormatGoldenIsSysbenchs checks that golden against Debian's
// sysbench.
//
// # sysbench's command lines
//
// The seeds' sysbench lines run with `loadgen` in place of `sysbench`
// (`TestSeedCommandLines` parses every one of seeds 002 and 004):
//
//   - options anywhere, as sysbench takes them: `loadgen --threads=128
//     --tables=100 oltp_read_only prepare` (the command words move first);
//   - sysbench 0.4/0.5 forms: `--test=fileio`, `--test=oltp` and
//     `--test=…/oltp.lua` (oltp_read_write; another script keeps its name),
//     `--max-time`, `--max-requests`, `--num-threads`, `--oltp-table-size`,
//     `--oltp-tables-count`;
//   - sysbench-tpcc's `tpcc.lua … --scale=N` is `loadgen tpcc --warehouses=N`,
//     and its `--tables=N` is tpcc's `--tables=N`: N independent TPC-C schemas
//     in the database, each table's name suffixed with its copy's number as
//     sysbench-tpcc's `tpcc_common.lua` suffixes its own (`bmsql_warehouse1` …
//     `bmsql_warehouseN`; one copy keeps BenchmarkSQL's names). prepare loads
//     each copy in turn, check checks every copy (each result is named `copy
//     k: …`), cleanup drops them all, and a run draws each transaction's copy
//     uniformly, as `tpcc_run.lua` draws `table_num`. A terminal keeps the
//     prepared statements of its two most recently used copies and closes the
//     others', so 128 terminals on 100 copies stay under MySQL's
//     `max_prepared_stmt_count` (16,382) at the cost of preparing again when
//     a transaction changes copy. Seed 002's line runs as written
//     (`TestSeed002TPCCLineWithTables`: prepare, run, check and cleanup at
//     `--tables=2 --scale=1`, about 80 s);
//   - `--db-driver=mysql` (another driver is refused); the password from
//     `--mysql-password` (visible in `ps`), else `--mysql-password-file=FILE`
//     (its first line; a FIFO or device is refused), else the `[client]` group
//     of `--defaults-extra-file=my.cnf` (read by the mysql client's option-file
//     rules, `internal/mycnf`; its user, host, port and socket apply where the
//     command line gives none; a file without a `[client]` group is refused
//     rather than logging in as the anonymous `”@`, and a malformed line is
//     named by its number, never echoed), else `MYSQL_PWD`. A target that does not parse
//     is named in the error with its password masked;
//   - accepted with a line saying they have no effect, and why:
//     `--db-ps-mode=disable` (the OLTP scripts use server-side prepared
//     statements, as sysbench's auto mode), `--mysql-ignore-errors` (deadlocks
//     and lock wait timeouts are retried, the rest counted by class),
//     `--histogram` (the histogram is walab_loadgen_transaction_duration_seconds),
//     `--warmup-time` (loadgen counts from the start; walab compare selects the
//     steady rounds), `--thread-init-timeout`.
//
// Seed 002's `sysbench cpu` check runs as `loadgen cpu --cpu-max-prime=N run`
// (primes by trial division per event, sysbench's "CPU speed: events per
// second" summary); one run on this 2-core VM, `sysbench cpu
// --cpu-max-prime=10000 --threads=2 --time=3 run` against the same line with
// `loadgen`: 4,850 vs 3,995 events per second (0.82×; the per-event work is
// the same loop, sysbench's compiled C is faster).
//
// Its `sysbench memory` check runs as `loadgen memory` with sysbench 1.0.20's
// options (`--memory-block-size`, `--memory-total-size`, `--memory-scope`
// global/local, `--memory-oper` read/write/none, `--memory-access-mode`
// seq/rnd; `--memory-hugetlb` only off) and summary ("Total operations",
// "MiB transferred"): each event reads or writes one block of machine words,
// in order or at random offsets, and the run ends when the total size is
// transferred (or at `--time`; a lower `--events` ends it sooner). Side by
// side (`ROUNDS=2 bash bench/memory-compare.sh`: 2 threads, 1 MiB blocks, 4
// GiB, alternating): loadgen/sysbench MiB/s 0.71–0.91 for seq read (a 1 MiB
// block is read from cache; sysbench's C loop is vectorised, Go's unrolled
// one is not), 1.05–1.26 seq write, 1.02–1.15 rnd read, about 2.1 rnd write
// (a cheaper random offset per access). Both measure the machine with their
// own loops: compare machines with one tool.
package cli
