package check

import (
	"fmt"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

var irqbalanceCheck = hostKind("expect (running|stopped)",
	func(_ *plan.Plan, c plan.Check) []string {
		return need(c.Expect == "running" || c.Expect == "stopped", fmt.Sprintf("expect %q: want running or stopped", c.Expect))
	},
	func(f *hostapi.Facts, c plan.Check) (string, error) {
		if f.Irqbalance == nil {
			return "", fmt.Errorf("the exporter on %s could not tell whether irqbalance runs: %s", f.Hostname, strings.Join(f.Errors, "; "))
		}
		running := *f.Irqbalance
		if running != (c.Expect == "running") {
			return "", fmt.Errorf("irqbalance is %s on %s, the plan expects it %s", runningWord(running), f.Hostname, c.Expect)
		}
		return "irqbalance is " + runningWord(running) + " on " + f.Hostname, nil
	})

func init() { register("irqbalance", irqbalanceCheck) }
