package check

import (
	"fmt"
	"strconv"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// schedStealCheck: the scheduler's STEAL feature on the database host is
// on or off as planned (seed 000 turns it on with sched_steal_node_limit=N
// on the kernel command line and STEAL in sched_features); with nodes, the
// command line's sched_steal_node_limit is that number.
var schedStealCheck = hostKind("expect (on|off), nodes (sched_steal_node_limit)",
	func(_ *plan.Plan, c plan.Check) []string {
		var out []string
		if c.Expect != "on" && c.Expect != "off" {
			out = append(out, fmt.Sprintf("expect %q: want on or off", c.Expect))
		}
		if c.Nodes != "" {
			if n, err := strconv.Atoi(c.Nodes); err != nil || n < 1 {
				out = append(out, fmt.Sprintf("nodes %q: want the sched_steal_node_limit, a positive number", c.Nodes))
			}
		}
		return out
	},
	func(f *hostapi.Facts, c plan.Check) (string, error) {
		t := f.Tuning
		if t.SchedSteal == nil {
			return "", fmt.Errorf("%s shows no STEAL scheduler feature (debugfs not mounted, the exporter not root, or a kernel without the STEAL patch)", f.Hostname)
		}
		if *t.SchedSteal != (c.Expect == "on") {
			return "", fmt.Errorf("the STEAL scheduler feature is %s on %s, the plan expects %s", onOff(*t.SchedSteal), f.Hostname, c.Expect)
		}
		msg := "STEAL " + onOff(*t.SchedSteal)
		if c.Nodes != "" {
			if t.StealNodeLimit == nil || *t.StealNodeLimit != c.Nodes {
				got := "absent from the kernel command line"
				if t.StealNodeLimit != nil {
					got = *t.StealNodeLimit
				}
				return "", fmt.Errorf("sched_steal_node_limit on %s is %s, the plan expects %s", f.Hostname, got, c.Nodes)
			}
			msg += ", sched_steal_node_limit=" + c.Nodes
		}
		return msg + " on " + f.Hostname, nil
	})

func init() { register("sched_steal", schedStealCheck) }
