package check

import (
	"context"
	"fmt"

	"github.com/walab/walab/internal/experiment/plan"
)

// governorCheck: the database host's CPU frequency governor is the
// planned one (performance, for stable runs).
var governorCheck = checkKind{
	keys:  "expect (a governor: performance, powersave, ...)",
	needs: needs{exporter: true},
	validate: func(_ *plan.Plan, c plan.Check) []string {
		if c.Expect == "" {
			return []string{"expect missing (the governor, e.g. performance)"}
		}
		return nil
	},
	run: func(e *Env, ctx context.Context, c plan.Check, _ *plan.Run) (string, error) {
		f, err := e.hostFacts(ctx)
		if err != nil {
			return "", err
		}
		if f.Governor == "" {
			return "", fmt.Errorf("%s shows no cpufreq governor (no cpufreq driver: a VM or a container?)", f.Hostname)
		}
		if f.Governor != c.Expect {
			return "", fmt.Errorf("CPU governor on %s is %s, the plan expects %s", f.Hostname, f.Governor, c.Expect)
		}
		return "CPU governor on " + f.Hostname + " is " + f.Governor, nil
	},
}

func init() { register("governor", governorCheck) }
