// Package experiment runs a lab procedure written as a plan (YAML): the
// per-run reset, preconditioning, placement switch and pre-run checks of
// seed 000, the thread sweep and repetitions of seed 002, and the final
// comparison, unattended and resumable, with a fingerprint of every run.
//
// The plan is its own package (plan: types, loading, validation, steps);
// this package is the executor that runs a loaded plan's items in order
// and records each (Executor, exec.go), and defines the check kinds the
// plan's validation receives (CheckKinds).
package experiment
