package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/walab/walab/internal/experiment/check"
	"github.com/walab/walab/internal/experiment/loadgenargs"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// runChecks runs the plan's checks before a run against env, and records
// their results in its journal (env.State); a failing "stop" check fails
// the step with its reason, a failing "warn" check is recorded.
func runChecks(ctx context.Context, env *check.Env, it plan.Item, logPath string, printf func(string, ...any)) error {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return err
	}
	defer logf.Close()
	// A re-run (resume) replaces this run's earlier results.
	kept := env.State.Checks[:0]
	for _, c := range env.State.Checks {
		if c.Run != it.Run.Name {
			kept = append(kept, c)
		}
	}
	env.State.Checks = kept
	var stops []string
	for _, c := range env.Plan.Checks {
		cctx, cancel := context.WithTimeout(ctx, check.Budget(ctx, env, c))
		reason, err := check.Run(cctx, env, c, it.Run)
		cancel()
		if errors.Is(err, check.ErrNotRun) {
			fmt.Fprintf(logf, "%s %-14s not run: %s\n", time.Now().UTC().Format(time.RFC3339), c.Check, err)
			printf("[checks] %s: %s not run: %s", it.Run.Name, c.Check, err)
			continue
		}
		res := state.CheckResult{Run: it.Run.Name, Check: c.Check, Status: "pass", Reason: reason, At: time.Now().UTC()}
		if err != nil {
			res.Status, res.Reason = "fail", err.Error()
			if c.OnFailMode() == "warn" {
				res.Status = "warn"
			} else {
				stops = append(stops, c.Check+": "+err.Error())
			}
		}
		env.State.Checks = append(env.State.Checks, res)
		fmt.Fprintf(logf, "%s %-14s %-5s %s\n", res.At.Format(time.RFC3339), c.Check, res.Status, res.Reason)
		printf("[checks] %s: %s %s: %s", it.Run.Name, strings.ToUpper(res.Status), c.Check, res.Reason)
	}
	if len(stops) > 0 {
		return fmt.Errorf("pre-run check failed: %s", strings.Join(stops, "; "))
	}
	return nil
}

// checkEnv is what the checks run against (check.Env).
func (e *Executor) checkEnv() *check.Env {
	return &check.Env{Plan: e.Plan, State: e.state, Setup: e.setup, HTTP: e.HTTP}
}

// CheckKinds are the check kinds as the plan's validation receives them
// (check.Kinds).
func CheckKinds() plan.CheckKinds { return check.Kinds() }

// Kinds are what a plan is loaded with (plan.Load): the check kinds and
// loadgen's rules for its command lines (loadgenargs.Problems).
func Kinds() plan.Kinds { return plan.Kinds{Checks: CheckKinds(), Loadgen: loadgenargs.Problems} }
