package experiment

import (
	"context"
	"fmt"

	"github.com/walab/walab/internal/fingerprint"
)

var irqbalanceCheck = checkKind{
	keys: "expect (running|stopped)",
	validate: func(_ *Plan, c Check) []string {
		if c.Expect != "running" && c.Expect != "stopped" {
			return []string{fmt.Sprintf("expect %q: want running or stopped", c.Expect)}
		}
		return nil
	},
	run: func(_ *Executor, _ context.Context, c Check, _ *Run) (string, error) {
		running, err := fingerprint.ProcessRunning("irqbalance")
		if err != nil {
			return "", err
		}
		if running != (c.Expect == "running") {
			return "", fmt.Errorf("irqbalance is %s, the plan expects it %s", runningWord(running), c.Expect)
		}
		return "irqbalance is " + runningWord(running), nil
	},
}
