package check

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// Env is what a check runs against: the plan, the journal (the runs
// io_capacity reads, the reset's discard snapshots, the data sets
// same_data compares), the set-up whose checks run, and an HTTP client.
// A check reads the database host only through its exporter (HostFacts)
// and the targets (openTarget), never the machine walab runs on.
type Env struct {
	Plan  *plan.Plan
	State *state.State
	Setup string // the set-up whose checks run: its reset's and checks' id prefix (SetupKey)
	HTTP  *http.Client
}

func (e *Env) client() *http.Client {
	if e.HTTP != nil {
		return e.HTTP
	}
	return &http.Client{Timeout: 15 * time.Second}
}

// ErrNotRun: the check cannot be answered yet for this run, so it is not
// run (io_capacity before its run measured any IOPS).
var ErrNotRun = errNotRun

// Run runs one check: a nil error passes with the reason saying what was
// found; an error says what is wrong.
func Run(ctx context.Context, e *Env, c plan.Check, run *plan.Run) (string, error) {
	k, ok := checkKinds[c.Check]
	if !ok {
		return "", fmt.Errorf("unknown check %q", c.Check)
	}
	return k.run(e, ctx, c, run)
}

// Timeout bounds a check of kind: its own, else 30 s.
func Timeout(kind string) time.Duration {
	if k, ok := checkKinds[kind]; ok && k.timeout > 0 {
		return k.timeout
	}
	return 30 * time.Second
}

// Budget bounds check c: the plan's timeout for it when it gives one;
// else, for a kind whose work grows with the data, what the data needs
// (asked within 30 s; never below the kind's own); else the kind's.
func Budget(ctx context.Context, e *Env, c plan.Check) time.Duration {
	if c.Timeout > 0 {
		return c.Timeout.D()
	}
	d := Timeout(c.Check)
	if k, ok := checkKinds[c.Check]; ok && k.scale != nil {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if s, err := k.scale(e, sctx, c); err == nil {
			d = max(d, s)
		}
	}
	return d
}

func runningWord(b bool) string {
	if b {
		return "running"
	}
	return "stopped"
}

func (e *Env) openTarget(name string) (*sql.DB, error) {
	t := e.Plan.TargetNamed(name)
	if t == nil {
		return nil, fmt.Errorf("target %q not defined", name)
	}
	return sql.Open("mysql", t.DSN)
}

// datadirs are the paths a check looks at: its path, or the data
// directories the targets report (SELECT @@datadir).
func (e *Env) datadirs(ctx context.Context, c plan.Check) ([]string, error) {
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
