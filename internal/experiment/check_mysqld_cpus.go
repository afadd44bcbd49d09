package experiment

import (
	"context"
	"fmt"
	"strings"

	"github.com/walab/walab/internal/hostapi"
)

// checkMysqldCPUs: every watched mysqld (or the named process) on the
// database host may run on exactly the planned CPUs and, with nodes, takes
// its memory from those NUMA nodes (numactl --membind, or a cpuset's
// mems).
func (e *Executor) checkMysqldCPUs(ctx context.Context, c Check) (string, error) {
	f, err := e.hostFacts(ctx)
	if err != nil {
		return "", err
	}
	procs := processesNamed(f, c.Process)
	if len(procs) == 0 {
		return "", fmt.Errorf("no %s process on %s that its exporter watches (its process: names)", orDefaultName(c.Process), f.Hostname)
	}
	var found []string
	for _, p := range procs {
		ok, err := sameCPUs(p.CPUs, c.CPUs, false)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("%s pid %d on %s may run on CPUs %s, the plan expects %s", p.Name, p.PID, f.Hostname, p.CPUs, c.CPUs)
		}
		msg := fmt.Sprintf("%s pid %d on CPUs %s", p.Name, p.PID, p.CPUs)
		if c.Nodes != "" {
			if p.Mems != c.Nodes && p.NUMAPolicy != "bind:"+c.Nodes {
				return "", fmt.Errorf("%s pid %d on %s takes memory from nodes %s (policy %s), the plan expects nodes %s", p.Name, p.PID, f.Hostname, p.Mems, orUnknown(p.NUMAPolicy), c.Nodes)
			}
			msg += fmt.Sprintf(", memory nodes %s (policy %s)", p.Mems, orUnknown(p.NUMAPolicy))
		}
		found = append(found, msg)
	}
	return strings.Join(found, "; ") + " on " + f.Hostname, nil
}

// processesNamed are the facts' processes called name, or without a name
// the mysqld processes, else the mariadbd ones.
func processesNamed(f *hostapi.Facts, name string) []hostapi.Process {
	names := []string{name}
	if name == "" {
		names = []string{"mysqld", "mariadbd"}
	}
	for _, n := range names {
		var out []hostapi.Process
		for _, p := range f.Processes {
			if p.Name == n {
				out = append(out, p)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

func orDefaultName(n string) string {
	if n == "" {
		return "mysqld or mariadbd"
	}
	return n
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

var mysqldCPUsCheck = checkKind{
	keys:     "cpus, nodes, process",
	needs:    needs{exporter: true},
	validate: func(_ *Plan, c Check) []string { return validCPUs(c) },
	run: func(e *Executor, ctx context.Context, c Check, _ *Run) (string, error) {
		return e.checkMysqldCPUs(ctx, c)
	},
}
