package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
)

var irqbalanceCheck = checkKind{
	keys: "expect (running|stopped)",
	validate: func(_ *plan.Plan, c plan.Check) []string {
		if c.Expect != "running" && c.Expect != "stopped" {
			return []string{fmt.Sprintf("expect %q: want running or stopped", c.Expect)}
		}
		return nil
	},
	needs: needs{exporter: true},
	run: func(e *Env, ctx context.Context, c plan.Check, _ *plan.Run) (string, error) {
		f, err := e.hostFacts(ctx)
		if err != nil {
			return "", err
		}
		if f.Irqbalance == nil {
			return "", fmt.Errorf("the exporter on %s could not tell whether irqbalance runs: %s", f.Hostname, strings.Join(f.Errors, "; "))
		}
		running := *f.Irqbalance
		if running != (c.Expect == "running") {
			return "", fmt.Errorf("irqbalance is %s on %s, the plan expects it %s", runningWord(running), f.Hostname, c.Expect)
		}
		return "irqbalance is " + runningWord(running) + " on " + f.Hostname, nil
	},
}

func init() { register("irqbalance", irqbalanceCheck) }
