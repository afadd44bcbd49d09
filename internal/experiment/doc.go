// Package experiment runs a lab procedure written as a plan (YAML): the
// per-run reset, preconditioning, placement switch and pre-run checks of
// seed 000, the thread sweep and repetitions of seed 002, and the final
// comparison, unattended and resumable, with a fingerprint of every run.
//
// The layers, each a package: plan (types, loading, validation, steps),
// state (the journal and its atomic writes), check (the pre-run check
// kinds, run against check.Env) and report (report.md from plain values).
// This package is the executor: it runs a loaded plan's items in order,
// each step's command in its own process group, the runs between two
// fingerprints, the checks and the compare step, and records each in the
// journal (Executor, exec.go).
package experiment
