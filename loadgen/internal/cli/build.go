package cli

import (
	"fmt"
	"slices"

	"github.com/walab/walab/internal/workload"
)

// local: the command's workload runs on the client alone (no target, no
// connection).
func (c *command) local() bool { return c.factory.SQL == nil }

// checkFactory refuses a registration whose factory is neither local nor
// SQL, or both, and a local workload with phases around run but no
// Stages: programming errors, found when the command line is built.
func (c *command) checkFactory() error {
	if (c.factory.Local == nil) == (c.factory.SQL == nil) {
		return fmt.Errorf("workload %s: its factory must set Local or SQL, and one only", c.spec.Name)
	}
	return nil
}

// build makes t's workload with the command's factory, and the run
// configuration and prepare's loaders that follow from it and the flags.
func (c *command) build(f *flags, t *target) error {
	wt := workload.Target{Name: t.name, File: t.file, Seed: f.run.seed}
	var err error
	if c.local() {
		if t.wl, err = c.factory.Local(wt); err != nil {
			return err
		}
		if st, ok := t.wl.(workload.Stages); ok {
			t.stages = st
		} else if slices.ContainsFunc(c.spec.Phases, func(p string) bool { return p != "run" }) {
			return fmt.Errorf("workload %s lists the phases %v but has no Prepare, Check and Cleanup", c.spec.Name, c.spec.Phases)
		}
	} else if t.sql, err = c.factory.SQL(wt); err != nil {
		return err
	}
	t.run = runConfig(f, c, t)
	t.workers = prepareWorkers(f, t)
	return nil
}

// info is t's workload, local or SQL.
func (t *target) info() workload.Info {
	if t.sql != nil {
		return t.sql
	}
	return t.wl
}
