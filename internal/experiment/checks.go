package experiment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// runChecks runs the plan's checks before a run; a failing "stop" check
// fails the step with its reason, a failing "warn" check is recorded.
func (e *Executor) runChecks(ctx context.Context, it Item, logPath string) error {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return err
	}
	defer logf.Close()
	// A re-run (resume) replaces this run's earlier results.
	kept := e.state.Checks[:0]
	for _, c := range e.state.Checks {
		if c.Run != it.Run.Name {
			kept = append(kept, c)
		}
	}
	e.state.Checks = kept
	e.setup = setupKey(it.ID)
	var stops []string
	for _, c := range e.Plan.Checks {
		timeout := 30 * time.Second
		if k, ok := checkKinds[c.Check]; ok && k.timeout > 0 {
			timeout = k.timeout
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		reason, err := e.check(cctx, c, it.Run)
		cancel()
		if errors.Is(err, errNotRun) {
			fmt.Fprintf(logf, "%s %-14s not run: %s\n", time.Now().UTC().Format(time.RFC3339), c.Check, err)
			e.printf("[checks] %s: %s not run: %s", it.Run.Name, c.Check, err)
			continue
		}
		res := CheckResult{Run: it.Run.Name, Check: c.Check, Status: "pass", Reason: reason, At: time.Now().UTC()}
		if err != nil {
			res.Status, res.Reason = "fail", err.Error()
			if c.OnFailMode() == "warn" {
				res.Status = "warn"
			} else {
				stops = append(stops, c.Check+": "+err.Error())
			}
		}
		e.state.Checks = append(e.state.Checks, res)
		fmt.Fprintf(logf, "%s %-14s %-5s %s\n", res.At.Format(time.RFC3339), c.Check, res.Status, res.Reason)
		e.printf("[checks] %s: %s %s: %s", it.Run.Name, strings.ToUpper(res.Status), c.Check, res.Reason)
	}
	if len(stops) > 0 {
		return fmt.Errorf("pre-run check failed: %s", strings.Join(stops, "; "))
	}
	return nil
}

// check runs one check: a nil error passes with the reason saying what was
// found; an error says what is wrong.
func (e *Executor) check(ctx context.Context, c Check, run *Run) (string, error) {
	k, ok := checkKinds[c.Check]
	if !ok {
		return "", fmt.Errorf("unknown check %q", c.Check)
	}
	return k.run(e, ctx, c, run)
}

func runningWord(b bool) string {
	if b {
		return "running"
	}
	return "stopped"
}

func (e *Executor) openTarget(name string) (*sql.DB, error) {
	t := e.Plan.TargetNamed(name)
	if t == nil {
		return nil, fmt.Errorf("target %q not defined", name)
	}
	return sql.Open("mysql", t.DSN)
}

// datadirs are the paths a check looks at: its path, or the data
// directories the targets report (SELECT @@datadir).
func (e *Executor) datadirs(ctx context.Context, c Check) ([]string, error) {
	if c.Path != "" {
		return []string{c.Path}, nil
	}
	var out []string
	for _, name := range c.Targets {
		db, err := e.openTarget(name)
		if err != nil {
			return nil, err
		}
		var dir string
		err = db.QueryRowContext(ctx, "SELECT @@datadir").Scan(&dir)
		db.Close()
		if err != nil {
			return nil, fmt.Errorf("target %s: datadir: %w", name, err)
		}
		out = append(out, dir)
	}
	return out, nil
}
