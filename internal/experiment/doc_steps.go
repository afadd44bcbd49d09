// Package experiment: how a step's processes are kept and ended, and the tests of the experiment (the detail behind docs/experiment.md).
//
// Every command and loadgen step runs in a process group of its own, led by a
// small `/bin/sh` guard. The runner starts the guard, records the group (its id,
// the leader's start time from `/proc`, the boot id, and a token that every
// process of the step inherits as `WALAB_STEP_TOKEN`) in the state file, and only
// then lets the guard start the command. SIGINT or SIGTERM stops the current
// step: SIGTERM to the whole group, SIGKILL after 10 s, and the runner waits until
// no process of the group is left; the state stays ready for resume.
//
// If the runner itself is killed (SIGKILL, a crash), the kernel sends the guard
// SIGUSR1 (`PR_SET_PDEATHSIG`), and the guard kills its whole group with SIGKILL:
// `/bin/sh` forks the commands it runs, so a death signal to the shell alone would
// leave them running as orphans. The runner is also a child subreaper
// (`PR_SET_CHILD_SUBREAPER`): what a step's shell leaves behind stays its
// descendant, so it can wait for the whole group. `walab experiment resume`
// (with or without `--skip`/`--redo`) first ends the recorded group of every
// interrupted step, in case the guard could not (killed itself, stopped): it
// kills the group only when it is verifiably the step's (the leader alive with
// the recorded start time, or, the leader gone, a process carrying the step's
// token; never after a reboot), waits up to 2 minutes for it to be gone, and
// refuses to continue otherwise, naming the processes. A process that leaves
// the group on purpose (`setsid`, a daemon started by a step) is not followed;
// such daemons, started by a step that ends normally, keep running by design,
// and the step's log names them (`TestDaemonLeftRunningIsNamed`). A guard killed
// on its own (the OOM killer) fails the step, and the runner ends its group
// (`TestKilledGuardEndsGroup`); an interrupt ends a process that ignores
// SIGTERM too (`TestInterruptEndsWholeGroup`).
// `TestRunnerKillEndsStepGroup` kills the runner with SIGKILL while a step's
// shell waits for a forked `sleep`; `TestResumeEndsSurvivingGroup` also kills
// (or stops) the guard, and resume ends the `sleep` before it refuses or redoes
// the step; `TestResumeLeavesForeignGroup` gives resume a recorded group id now
// used by another process, which survives. `TestResumeAfterSIGKILL` kills the
// runner in the middle of a repetition.
// After resume, the counted runs and their figures equal those of an
// uninterrupted experiment, and no command ran twice except the interrupted run.
//
// # Tests
//
//	go test ./internal/experiment/... ./internal/fingerprint ./walab ./deploy
//	go test ./e2e -run 'TestExperiment' -v      # real parts, about 3 minutes
//
// - `internal/experiment`: golden errors of bad plans (`testdata/plans/*.err`), `FuzzParse` (corpus in `testdata/fuzz/FuzzParse`), the destructive patterns, the dry-run golden, sweep × repeat with restarts, SIGKILL and resume, an interrupted destructive step refused until `--skip`/`--redo`, a failing check stopping the experiment, foreign files and changed plans refused, precondition by capacities written, the metrics contract (promtool, docs rows, bounded series).
// - `internal/experiment` `TestLayering`: the packages' order (plan, state, check and report below the executor; the plan imports no check kind, validation receives them as a value). `internal/lab` `TestPlanValuesStayValues`, `TestPlanEnvValueIsOneValue`: `walab lab` loads its plan like `walab experiment run` (the file as written, the lab's values expanded in the plan's values, never its text; `--round` and `--run` as durations).
// - `e2e/TestExperimentSeed000Sim`: the shipped plan, unchanged, on the exporter's simulated drive, with the machine's MariaDB (instance 1) and a private mariadbd (instance 2), a real Prometheus and loadgen TPC-C. The resets restore both datasets from a `mariadb-dump`, and the between steps switch the simulator's placement. The report contains both runs, their fingerprints (differing only in the placement), the checks, and the WA reduction from the drive counters.
// - `e2e/TestExperimentFioSeed002RandWrite` and `internal/experiment` `TestFio*`: the fio run kind (`go doc ./internal/fio`).
// - `TestExporterLostMidRun`, `walab` `TestExperimentExporterLostExits1`: a run whose end fingerprint lost what its start read (the exporter or a target gone) fails, is not counted, exits 1 and runs again on resume.
// - `e2e/TestExperimentSweepRepeat`: `sweep: {threads: [1, 2, 4]}` × `repeat: 3` with oltp_read_write against a private mariadbd, which a plan command restarts before each repetition after the first (6 restarts, 6 new server processes). The report names the peak.
package experiment
