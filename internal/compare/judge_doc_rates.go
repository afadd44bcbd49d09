// Package compare: the verdict's measured error rates on the whole pipeline (moved from docs/compare.md).
//
// # Error rates on the whole pipeline
//
// The interval's coverage above is on synthetic rounds. On the path users
// run (loadgen TPC-C → MariaDB, the exporter's simulated drive, a real
// Prometheus scraping every second, `walab compare`'s judge),
// `bench/verdict-error-rates.sh` measures it (about 35 minutes; settings
// `PAIRS`, `RATE_PAIRS`, `ROUNDS`, `ROUND_SECONDS`; one line per pair in
// `verdict-error-rates.tsv`, with every compared round's transactions/s; the
// throughput and p99 intervals it scores are the rounds' ones the verdict no
// longer prints, kept in the JSON as `throughput_rounds_change` and
// `p99_rounds_change`):
//
//		bench/verdict-error-rates.sh            # PAIRS=20 RATE_PAIRS=10 ROUNDS=8 ROUND_SECONDS=3
//
//	  - **A/A and A/B placement** come from one long loadgen run (4 terminals,
//	    unlimited rate) cut into windows of 8 compared rounds of 3 s, each after
//	    one settling round, placement alternating off, on, off, …: (off, next on)
//	    is an A/B pair, (off, next off) an A/A pair. Cutting one run is honest
//	    here because the effect is switched within the run and both windows of an
//	    A/A pair follow an "on" window alike; adjacent A/A pairs share a window,
//	    so their verdicts are not independent and the rates' error is larger than
//	    a binomial one of the same N. The simulated drive's fill does not grow in
//	    the bench (`fill_hours` very large): with the default growth WA rose about
//	    0.45 % a minute, and two windows a minute apart truly differ.
//	  - **The placement effect's reference** is the WA change of all "on" rounds
//	    against all "off" rounds pooled (the simulator's model is deterministic;
//	    its effect is a property of the model, not a closed formula).
//	  - **A/B rate** is RATE_PAIRS pairs of runs at `--rate X` and `0.9·X`
//	    (X = 0.6 × the A/A windows' mean throughput): a throughput change of
//	    exactly −10 % while loadgen keeps up.
//	  - **Rounds for a 5 % change at 80 % power** (two-sided 5 % test):
//	    `n = rounds · (2.80 · sd / 0.05)²`, with sd the spread of the A/A
//	    estimates (everything that moves a pair), and the same from the median
//	    interval width (the spread within windows only).
//
// Each run of the bench, with its command, date, machine and every figure, is
// in [bench/RESULTS-verdict.md](../bench/RESULTS-verdict.md). The headline on the project's shared
// 2-core machine: **WA** detected every placement pair (58 of 58) and called 2
// of 56 A/A pairs significant, each under 1 %: read a significant WA change
// under about 1 % as window-to-window drift, not a placement effect.
// **Throughput** called 4 to 5 of 16 to 20 A/A pairs significant, because the
// load changed between windows, which an interval from rounds within a run
// cannot hold: compare throughput on a quiet machine with long rounds, or with
// `cycles:` (below); at a fixed `--rate` the pipeline read a −10 % change in
// every pair. 8 rounds per side is too few when rounds are autocorrelated
// (2 batches per run); compare 12 rounds or more.
//
// # An interval between runs
//
// The verdict's throughput interval comes from one pair of runs, so it cannot
// hold a change of load between them. An experiment with `cycles: 3` or more
// (docs/experiment.md) alternates the two runs and its report gives the
// whole-run throughput change an interval between repetitions (Welch's t on
// the log ratio of the repetitions' TPS). On the seed 000 plan in simulated time (`WALAB_CYCLES=3`), where placement
// cannot change MariaDB's throughput, the verdict's last pair called a
// throughput change significant and the interval between repetitions did not
// ([bench/RESULTS-verdict.md](../bench/RESULTS-verdict.md)).
// On synthetic A/A runs with run-level shifts, the rounds' interval calls
// 631 of 1000 significant, the interval between 3 repetitions 31 of 1000
// (`TestRepsIntervalHoldsRunLevelShifts`).
//
// On the pipeline's stored A/A windows, grouped as three repetitions, the
// interval between repetitions called 0 of 12 groups significant, where the
// verdict's rounds interval called 4 of 20 and 2 of 20 A/A pairs significant
// ([bench/RESULTS-verdict.md](../bench/RESULTS-verdict.md)); the rate for whole experiments with `cycles: 3` is not
// measured.
//
// `TestVerdictAAandAB` (in `make test`, about 2 minutes) keeps a short
// version: one A/A pair within 4 % WA, one placement pair detected near the
// model's effect, one rate pair −10 % ± 3 points and detected.
package compare
