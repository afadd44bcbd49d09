package check

import (
	"fmt"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// governorCheck: the database host's CPU frequency governor is the
// planned one (performance, for stable runs).
var governorCheck = hostKind("expect (a governor: performance, powersave, ...)",
	func(_ *plan.Plan, c plan.Check) []string {
		return need(c.Expect != "", "expect missing (the governor, e.g. performance)")
	},
	func(f *hostapi.Facts, c plan.Check) (string, error) {
		if f.Governor == "" {
			return "", fmt.Errorf("%s shows no cpufreq governor (no cpufreq driver: a VM or a container?)", f.Hostname)
		}
		if f.Governor != c.Expect {
			return "", fmt.Errorf("CPU governor on %s is %s, the plan expects %s", f.Hostname, f.Governor, c.Expect)
		}
		return "CPU governor on " + f.Hostname + " is " + f.Governor, nil
	})

func init() { register("governor", governorCheck) }
