// Package check owns the pre-run checks: one kind per check_*.go file,
// each with the keys it takes, the plan fields it needs, its validation
// (handed to the plan's as a value: Kinds) and how it runs against an Env
// (the plan, the journal, an HTTP client; the database host's facts read
// through its exporter, the targets opened by their DSN). It runs no
// step and knows nothing of the executor.
package check

import (
	"context"
	"fmt"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
)

// A checkKind is one kind of pre-run check: the keys a plan gives it, what
// it needs of the plan, how a plan's check of that kind is validated, and
// how it runs. Each kind lives in its own check_*.go file and registers
// itself there (register).
type checkKind struct {
	keys  string // the keys it takes, for the unknown-check error and docs
	needs needs  // plan fields it reads
	// validate returns what is wrong with c beyond the common keys; nil
	// when nothing is.
	validate func(p *plan.Plan, c plan.Check) []string
	run      func(e *Env, ctx context.Context, c plan.Check, run *plan.Run) (string, error)
	timeout  time.Duration // default 30 s
	// scale, for a check whose work grows with the data, gives the budget
	// its data needs (at least timeout), asked before the check runs.
	scale func(e *Env, ctx context.Context, c plan.Check) (time.Duration, error)
}

// needs are the plan-level fields a check kind reads.
type needs struct{ exporter, prometheus, device bool }

// problems lists the plan fields a check needs and the plan lacks.
func (n needs) problems(p *plan.Plan) []string {
	var out []string
	for _, f := range []struct {
		need bool
		key  string
		set  bool
	}{{n.exporter, "exporter", p.Exporter != ""}, {n.prometheus, "prometheus", p.Prometheus != ""}, {n.device, "device", p.Device != ""}} {
		if f.need && !f.set {
			out = append(out, fmt.Sprintf("needs the plan's %s", f.key))
		}
	}
	return out
}

// checkKinds are the kinds by name: each check_*.go file registers its
// own (register, from its init).
var checkKinds = map[string]checkKind{}

// register adds kind name; a name twice is a programming error.
func register(name string, k checkKind) {
	if _, dup := checkKinds[name]; dup {
		panic("check kind " + name + " registered twice")
	}
	checkKinds[name] = k
}

// Kinds are the check kinds as the plan's validation receives them:
// each kind's own validation and the plan fields it needs.
func Kinds() plan.CheckKinds {
	out := plan.CheckKinds{}
	for name, k := range checkKinds {
		out[name] = func(p *plan.Plan, c plan.Check) []string {
			var problems []string
			if k.validate != nil {
				problems = k.validate(p, c)
			}
			return append(problems, k.needs.problems(p)...)
		}
	}
	return out
}
