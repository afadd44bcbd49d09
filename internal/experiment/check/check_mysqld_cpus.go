package check

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/irq"
)

// checkMysqldCPUs: every watched mysqld (or the named process, or the one
// serving each of the check's targets) on the database host may run on
// exactly the planned CPUs; with nodes it takes its memory from those
// NUMA nodes (numactl --membind, or a cpuset's mems); with policy its
// memory policy is that one (numactl -i 0-3: interleave:0-3).
func (e *Env) checkMysqldCPUs(ctx context.Context, c plan.Check) (string, error) {
	f, err := e.hostFacts(ctx)
	if err != nil {
		return "", err
	}
	procs, err := e.instances(ctx, f, c)
	if err != nil {
		return "", err
	}
	var found []string
	for _, p := range procs {
		msg, err := pinned(p, c, f.Hostname)
		if err != nil {
			return "", err
		}
		found = append(found, msg)
	}
	return strings.Join(found, "; ") + " on " + f.Hostname, nil
}

// instances are the processes a check judges: with targets, the mysqld
// serving each (the one whose datadir, as the exporter read it, is the
// target's @@datadir) or the one in its path, else every process of its
// name.
func (e *Env) instances(ctx context.Context, f *hostapi.Facts, c plan.Check) ([]hostapi.Process, error) {
	procs := processesNamed(f, c.Process)
	if len(procs) == 0 {
		return nil, fmt.Errorf("no %s process on %s that its exporter watches (its process: names)", orDefaultName(c.Process), f.Hostname)
	}
	if len(c.Targets) == 0 && c.Path == "" {
		return procs, nil
	}
	dirs, err := e.datadirs(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []hostapi.Process
	for i, d := range dirs {
		p, ok := processInDir(procs, d)
		if !ok {
			what := "path"
			if c.Path == "" {
				what = "target " + c.Targets[i] + ": datadir"
			}
			return nil, fmt.Errorf("no %s on %s runs in %s %s (watched: %s)", orDefaultName(c.Process), f.Hostname, what, d, processList(procs))
		}
		out = append(out, p)
	}
	return out, nil
}

func processInDir(procs []hostapi.Process, dir string) (hostapi.Process, bool) {
	for _, p := range procs {
		if p.Dir != "" && filepath.Clean(p.Dir) == filepath.Clean(dir) {
			return p, true
		}
	}
	return hostapi.Process{}, false
}

func processList(procs []hostapi.Process) string {
	var out []string
	for _, p := range procs {
		out = append(out, fmt.Sprintf("pid %d in %s", p.PID, orUnread(p.Dir, p.Unread["dir"])))
	}
	return strings.Join(out, ", ")
}

// pinned judges one process against the check's cpus, nodes and policy.
func pinned(p hostapi.Process, c plan.Check, host string) (string, error) {
	ok, err := sameCPUs(p.CPUs, c.CPUs, false)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%s pid %d on %s may run on CPUs %s, the plan expects %s", p.Name, p.PID, host, p.CPUs, c.CPUs)
	}
	msg := fmt.Sprintf("%s pid %d on CPUs %s", p.Name, p.PID, p.CPUs)
	if c.Nodes != "" {
		if p.Mems != c.Nodes && p.NUMAPolicy != "bind:"+c.Nodes {
			return "", fmt.Errorf("%s pid %d on %s takes memory from nodes %s (policy %s), the plan expects nodes %s", p.Name, p.PID, host, p.Mems, orUnknown(p.NUMAPolicy), c.Nodes)
		}
		msg += fmt.Sprintf(", memory nodes %s", p.Mems)
	}
	if c.Policy != "" && !samePolicy(p.NUMAPolicy, c.Policy) {
		return "", fmt.Errorf("%s pid %d on %s has memory policy %s, the plan expects %s", p.Name, p.PID, host, orUnread(p.NUMAPolicy, p.Unread["numa_policy"]), c.Policy)
	}
	if c.Nodes != "" || c.Policy != "" {
		msg += fmt.Sprintf(" (policy %s)", orUnknown(p.NUMAPolicy))
	}
	return msg, nil
}

// samePolicy compares two memory policies as numa_maps prints them
// ("interleave:0-3"): the same mode and the same node set.
func samePolicy(got, want string) bool {
	gm, gn, _ := strings.Cut(got, ":")
	wm, wn, _ := strings.Cut(want, ":")
	if gm != wm {
		return false
	}
	if gn == wn {
		return true
	}
	ok, err := sameCPUs(gn, wn, false)
	return err == nil && ok
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

// orUnread is a process fact, or why the exporter did not have it (the
// privilege it needs, when that was the reason).
func orUnread(s, why string) string {
	if s == "" && why != "" {
		return "unknown (the exporter could not read it: " + why + ")"
	}
	return orUnknown(s)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func validMysqldCPUs(_ *plan.Plan, c plan.Check) []string {
	out := validCPUs(c)
	if c.Policy != "" {
		mode, nodes, ok := strings.Cut(c.Policy, ":")
		_, err := irq.ParseCPUList(nodes)
		if !ok || err != nil || mode != "interleave" && mode != "bind" && mode != "prefer" && mode != "preferred_many" {
			out = append(out, fmt.Sprintf("policy %q: want a memory policy as numa_maps prints it: interleave:0-3, bind:0, prefer:1", c.Policy))
		}
	}
	return out
}

var mysqldCPUsCheck = checkKind{
	keys:     "cpus, nodes, policy, process, targets",
	needs:    needs{exporter: true},
	validate: validMysqldCPUs,
	run:      runOf((*Env).checkMysqldCPUs),
}

func init() { register("mysqld_cpus", mysqldCPUsCheck) }
