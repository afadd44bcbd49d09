// Package lab, why it is set up as it is (the detail behind docs/simfs.md,
// "The lab on it"), and the tests that hold it:
//
//   - **The drive is sized to the data.** 640 MiB, the defaults otherwise (7 % spare, 256-page
//     blocks, greedy GC). After a restore the data takes about 470 MiB of the filesystem (the two
//     warehouses, `ibdata1` with the undo logs, a 96 MiB redo log), about 270 MiB of it written
//     pages: InnoDB reserves file space with `fallocate`, which writes nothing. The fullest moment is
//     the prepare's load, with the load's binary logs: the private server keeps a binary log 5 s
//     (8 MiB files, purged at the next rotation) so that they fit.
//   - **TRIM, and a reset to the files before every run.** The filesystem discards (`discard`, the
//     default): a purged binary log, a dropped table and a punched hole reach the drive as TRIM, as
//     under a filesystem mounted with `discard`. The plan's reset ends with `precondition-drive`,
//     which POSTs `/api/v1/sim/precondition` after the restores: the drive forgets every mapping and
//     writes back, in LBA order, the pages the files hold. This is the simulator's form of seed
//     000's `mkfs` with discard and copy of the data. Every run, baseline or streams, starts from a
//     fresh restore on the same drive state at the same fill (about 75 %: the files' 470 MiB of
//     640 MiB), so neither run inherits the other's garbage and the order favours neither.
//   - **Fill held.** TPC-C's database grows by design, and under the filesystem the drive's fill is
//     the database's size: without a bound, a run grows it, WA follows the fill rather than time,
//     and a long enough run fills the drive (ENOSPC; issue 55's 900 s lab). The lab's plan runs TPC-C with `--keep-size` (docs/tpcc.md, *Holding the
//     size*): each Delivery deletes as many of the oldest delivered orders and payments as the run
//     added, so the tables keep their size and InnoDB reuses the freed pages. The fill then stays
//     within a couple of points of its level after the reset for the whole run. This is chosen over
//     a larger drive with a small share of growth per run because that drive's free space would
//     lower WA and lengthen the climb, and the share would still grow with the run's length; with
//     the size held, a longer run only gives the drive more time.
//   - **A run that would outgrow the drive.** The lab samples the drive's fill every second during
//     each run. Before a run it multiplies the fastest growth it measured in the runs before by the
//     run's planned length and refuses the run if that would take the drive past 97 % fill (the
//     margin holds the binary logs' swing), with the figures: `run streams/r1/run refused: it would
//     outgrow the drive. The database grew 0.37 MiB/s in run baseline/r1/run (...); over this run's
//     15m0s that is 330 MiB, and the drive has 141 MiB left below its 97% limit (fill 75.0% now).
//     Shorten the runs (walab lab --run), give the drive more room, or hold the tables' size
//     (loadgen tpcc --keep-size)`. The first run has no run before it: once its first round (the
//     warm-up) has measured its rate, it is stopped, with the same figures, when that rate would
//     take the drive past 97 % before its end. Hooked in through the experiment's `BeforeRun`.
//   - **WA and fill per round.** After the verdict the lab prints, and writes to `fill.txt` in its
//     work directory, WA per round of both runs (the verdict's table) beside the drive's fill at
//     each round's end; a figure it does not have is `-`.
//   - **What a run shows.** In its first rounds the drive writes into its free space and WA is
//     1.0. Then garbage collection starts, and WA levels off within the run, lower with streams: the
//     default rule table gives the redo log, the binary logs and the tables' `.ibd` files a stream
//     each (MariaDB keeps the doublewrite buffer and the undo logs in `ibdata1`, which stays on
//     stream 0), so a purged binary log or a recycled stretch of redo frees whole blocks. With the
//     fill held, the baseline's climb ends after about 10 rounds of 10 s and the streams run's
//     sooner; the baseline then still rises slowly (a few percent over the next minutes). The
//     lab's runs are 180 s, so both arms are past their climb for the verdict's window. The
//     measured verdicts, WA and fill per round, and labs against 20-minute runs
//     (bench/lab-plateau.sh): bench/RESULTS-sim.md.
//   - **Set-ups that did not show placement** (bench/RESULTS-sim.md). With TRIM but without the
//     reset, the drive held only the data (about 45 % of its pages) and greedy GC found empty
//     victims: WA 1.00. Without TRIM, with the drive written end to end before mariadbd started,
//     WA reached 2.5–3.1 but streams did not lower it: a deleted binary log's pages stayed valid
//     until the allocator gave them to whichever file wrote next, so the streams no longer grouped
//     pages that die together.
//   - **The same start for both runs.** The reset restores each database without a binary log
//     (`SET sql_log_bin=0`: the real reset's `cp` writes none) and then purges the binary logs
//     (`purge-binlogs`, a no-op on a server without them), so each run starts from the same data,
//     the same empty binary log and the same drive state.
//   - **When the exporter dies mid-experiment** (the filesystem's process), the lab stops the
//     experiment at once and says so: `the lab's exporter (the simulated drive and the filesystem
//     under MariaDB's datadir) exited during the experiment (signal: killed): the experiment was
//     stopped and gives no WA`. It unmounts what the exporter left behind.
//
// `TestLab` (walab/) runs this path to its verdict and holds the drive's host bytes to the bytes
// MariaDB wrote through the filesystem (no fewer, at most two pages more per write call, and
// equal to the filesystem's page count), kills the exporter during the load, and cancels a
// `--no-simfs` lab. Its verdicts, timings and WA figures: `bench/RESULTS-sim.md`.
//
// `TestTwoHostsSeed000` (e2e/, docs/two-hosts.md) runs the same drive (`lab.SimFS`: the lab's
// `sim:` section: 640 MiB, TRIM on) on a database host in its own network namespace, with
// its mariadbd's datadir on the mount, under `deploy/experiments/seed000-two-hosts.yml`. That
// plan's reset re-preconditions the drive as `seed000-sim.yml` does, and the test holds the
// drive's host bytes to MariaDB's writes as `TestLab` does (`testenv.RequireSimFSHostBytes`).
// The exporter and mariadbd join only the host's network namespace (`nsenter --net`):
// `ip netns exec` would give each its own mount namespace, and mariadbd would not see the mount.
//
// Tests: `internal/simfs` (allocator properties, the filesystem's operations through the kernel),
// `internal/exporterapp` (`TestNewMountsSimFS`; `TestMariaDBWriteStreamOnTheDrive`: host bytes ==
// MariaDB's writes, doublewrite off lowers the host bytes per transaction;
// `TestKillFilesystemProcess`). Measured WA under TPC-C with the settings above, and the
// filesystem's cost: `bench/RESULTS-sim.md`.
package lab
