// Package compare: which rounds are compared and how steady state is judged, in detail (moved from docs/compare.md).
//
// # Compared rounds and steady state
//
// Steady state has two parts. The first steady window follows SNIA's Solid
// State Storage Performance Test Specification (PTS): a window of
// `--steady.window` (5) consecutive rounds is steady when its WA excursion
// (max − min) is at most `--steady.excursion` (20 %) of the window's mean and
// the excursion of its least-squares line across the window (|slope| ×
// (window − 1)) is at most `--steady.slope` (10 %) of the mean. Idle and
// missing rounds are skipped, as seed 000 skips idle hours.
//
// SNIA's rule alone is not enough at short rounds. It was written for rounds
// of a minute or more on a drive already near its plateau, and it allows a
// line that rises 10 % across five rounds: on 10-s rounds of a drive still
// filling its over-provisioning it passes a climb. `make run`'s arms once
// read WA 1.00, 1.05, 1.19, 1.28, 1.35, 1.38, 1.41, 1.42, 1.41 and 1.00,
// 1.01, 1.06, 1.11, 1.10, 1.11, 1.14, 1.16, 1.16 per round: SNIA's rule
// calls them steady from rounds 4 and 2, and the chart shows both still
// climbing. So the compared rounds must also show no trend a storage
// engineer would see: the drift of their least-squares line (slope × (n − 1),
// the line's rise from the first compared round to the last) is at most
// `--steady.drift` (3 %) of their mean, in each run. The rule is fio's
// `ss=iops_slope` criterion (fio's HOWTO, "Steady state") stated over the
// whole window rather than per round, so the limit reads the same at 5 or 12
// rounds; it is judged on the line's estimate, and its 95 % interval
// (Student's t on the slope's standard error, n − 2 degrees of freedom) is
// printed beside it so a reader sees whether a drift is noise. A
// Mann–Kendall test was not chosen: it answers "is there any monotone
// trend", not "is the trend larger than what matters", and on 5 to 12 rounds
// it has little power against the slow rise that matters here. The check
// names the rule that failed and by how much: `baseline steady  WA still
// rising: +9.2% [+2.8, +15.7] over rounds 4–9 (linear fit; limit 3% of the
// window's mean)` (`TestCompareStillRising` feeds the series above through
// a real Prometheus and gets NOT VALID; a plateau with ±1.5 % noise passes).
//
// **Equal windows.** With `--select=steady` (default) both runs are compared
// over the same rounds: the same number, at the same round numbers counted
// from each run's start (its reset), so at matched fill and matched bytes
// written since the reset. The window starts no earlier than the later of
// the two first steady windows and is the last `--last-hours` (12) rounds
// both runs have complete with host writes; when either run's WA still
// drifts over it, the latest shorter common window (down to
// `--steady.window` rounds) in which neither drifts is taken, and when none
// is, the full window stands and the steady check fails on its trend. A
// window is never longer on one side; the `equal windows` check says which
// rounds. The HTML report's chart shades exactly the compared rounds.
// `--select=last-nonzero` is seed 000's rule (each run's own last 12
// non-zero rounds), kept for seed 000's tables. A run that never reaches
// steady state fails its check.
//
// With `--select=steady`, throughput must settle too: where the rounds carry
// committed transactions (loadgen's counter, or the server's COMMITs), the
// same criterion runs on transactions per round within WA's compared
// rounds, and the drift rule on its performance rounds (a throughput
// still falling warns and has no interval), and the throughput, New-Order and latency figures come from the
// rounds from the first steady throughput window on (the last
// `--last-hours` of them). WA keeps its own compared rounds: a load step
// changes how much the host writes, not what the drive writes to NAND per
// host byte, and narrowing WA's rounds to the throughput's would cost WA
// its interval whenever the load settles late (the seed 000 e2e on a busy
// CI machine: baseline throughput steady from round 10 of 14 left WA 5
// rounds, fewer than two batches of 3). The performance table names the
// throughput's rounds when they are fewer, and the per-round table prints
// `-` for a round before them.
// A run restored before it starts has a cold buffer pool, and its first
// rounds run slower (seed 000's e2e candidate: 925, 955, 1011, then about
// 1075 transactions/s per 5 s round); comparing them as if they were the
// treatment's effect shifts the throughput change and, because a trend
// reads as autocorrelation, widens its interval. A run whose throughput
// never settles keeps WA's selection and a `warn` line: the WA verdict
// stands, and the throughput, New-Order and latency changes are printed
// with `no interval` (never significant) because their spread is a trend,
// not noise (`TestCompareThroughputSteady`: a candidate warming up for four
// hours reads −12.5 % [−52.7, +61.8] over all rounds and 0.0 % from hour 5,
// where its throughput settled).
//
// `--steady.criterion` selects fio's `ss=` forms instead, over the same
// window of rounds (fio's `ss_dur`): `fio-dev:P%` (fio's `iops:P%`: every
// round's WA within P% of the window's mean) and `fio-slope:P%` (fio's
// `iops_slope:P%`: the least-squares slope per round at most P% of the
// mean). The check's line names the criterion used.
//
// The same SNIA test runs live as the recording rule
// `device:walab_nvme_write_amplification:steady_snia` (1 steady, 0 not yet),
// drawn on the run comparison board; `TestSteadyRuleMatchesCompare` feeds one
// hourly WA series to both and checks they agree hour by hour.
package compare
