package plan

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"
)

// Phase names, in the order a run goes through them.
const (
	PhasePrepare      = "prepare"
	PhaseReset        = "reset"
	PhasePrecondition = "precondition"
	PhaseBetween      = "between"
	PhaseChecks       = "checks"
	PhaseRestart      = "restart"
	PhaseRun          = "run"
	PhaseCompare      = "compare"
	PhaseReport       = "report"
)

// Item is one step of the flattened plan. Its ID is stable across
// invocations of the same plan: the state file records progress by ID.
type Item struct {
	ID          string
	Phase       string
	Run         *Run  // the run the item belongs to (nil for prepare, compare, report)
	Step        *Step // commands and loadgen steps
	Threads     int   // run items: loadgen --threads (0: loadgen's default or args)
	Rep         int   // run items: repetition, from 1
	Destructive bool
	Expected    time.Duration // run items: the planned duration
}

// Steps flattens the plan: prepare once; per run reset, precondition,
// between, checks, then every sweep value × repetition (restart before each
// repetition after the first); the list of runs once per cycle; compare;
// report.
func Steps(p *Plan) ([]Item, error) {
	f := flattener{seen: map[string]bool{}}
	if err := f.cmds("", PhasePrepare, nil, p.Prepare); err != nil {
		return nil, err
	}
	for c := 1; c <= max(p.Cycles, 1); c++ {
		for ri := range p.Runs {
			if err := f.run(p, &p.Runs[ri], c); err != nil {
				return nil, err
			}
		}
	}
	if p.Compare != nil {
		if err := f.add(Item{ID: PhaseCompare, Phase: PhaseCompare}); err != nil {
			return nil, err
		}
	}
	if err := f.add(Item{ID: PhaseReport, Phase: PhaseReport}); err != nil {
		return nil, err
	}
	return f.out, nil
}

// flattener collects the items of Steps, refusing an ID twice.
type flattener struct {
	out  []Item
	seen map[string]bool
}

func (f *flattener) add(it Item) error {
	if f.seen[it.ID] {
		return fmt.Errorf("step id %q twice", it.ID)
	}
	f.seen[it.ID] = true
	f.out = append(f.out, it)
	return nil
}

func (f *flattener) cmds(prefix, phase string, run *Run, list []Step) error {
	for i := range list {
		s := &list[i]
		id := prefix + phase + "/" + strconv.Itoa(i+1)
		if s.Name != "" {
			id += "-" + s.Name
		}
		if err := f.add(Item{ID: id, Phase: phase, Run: run, Step: s, Destructive: s.Destructive}); err != nil {
			return err
		}
	}
	return nil
}

// run adds one run's items for cycle c (from 1). In cycle c > 1 the set-up
// steps' IDs get "cN/" and the run is repetition c (one per cycle).
func (f *flattener) run(p *Plan, r *Run, c int) error {
	pre := r.Name + "/"
	setup := pre
	if c > 1 {
		setup += "c" + strconv.Itoa(c) + "/"
	}
	for _, ph := range []struct {
		name string
		list []Step
	}{{PhaseReset, p.Reset}, {PhasePrecondition, p.Precondition}, {PhaseBetween, r.Between}} {
		if err := f.cmds(setup, ph.name, r, ph.list); err != nil {
			return err
		}
	}
	if len(p.Checks) > 0 {
		if err := f.add(Item{ID: setup + PhaseChecks, Phase: PhaseChecks, Run: r}); err != nil {
			return err
		}
	}
	threads := []int{r.Threads}
	if r.Sweep != nil {
		threads = r.Sweep.Threads
	}
	first, last := 1, max(r.Repeat, 1)
	if p.Cycles > 1 {
		first, last = c, c
	}
	for _, th := range threads {
		for rep := first; rep <= last; rep++ {
			id := pre
			if r.Sweep != nil {
				id += "t" + strconv.Itoa(th) + "/"
			}
			id += "r" + strconv.Itoa(rep)
			if r.Restart != "" && (rep > 1 || r.RestartEvery) {
				if err := f.add(Item{ID: id + "/" + PhaseRestart, Phase: PhaseRestart, Run: r, Threads: th, Rep: rep,
					Step: &Step{Command: r.Restart, On: p.restartHost(), Line: r.Line}}); err != nil {
					return err
				}
			}
			if err := f.add(Item{ID: id + "/" + PhaseRun, Phase: PhaseRun, Run: r, Threads: th, Rep: rep, Expected: r.expected(), Destructive: r.Destructive}); err != nil {
				return err
			}
		}
	}
	return nil
}

// RunID is the loadgen run id of a run item's attempt: unique per
// experiment, repetition, thread count and attempt, so an interrupted
// attempt's series never merge with the one that is counted.
func (p *Plan) RunID(it Item, attempt int) string {
	id := p.Name + "-" + it.Run.Name
	if it.Run.Sweep != nil {
		id += "-t" + strconv.Itoa(it.Threads)
	}
	id += "-r" + strconv.Itoa(it.Rep)
	if attempt > 1 {
		id += "-a" + strconv.Itoa(attempt)
	}
	return id
}

// Scenario is the run's scenario label (default: its name).
func (r *Run) ScenarioLabel() string {
	if r.Scenario != "" {
		return r.Scenario
	}
	return r.Name
}

func (p *Plan) TargetNamed(name string) *Target {
	for i := range p.Targets {
		if p.Targets[i].Name == name {
			return &p.Targets[i]
		}
	}
	return nil
}

// LoadgenBin is the loadgen binary the plan's steps run.
func (p *Plan) LoadgenBin() string {
	if p.Loadgen != "" {
		return p.Loadgen
	}
	return "loadgen"
}

func (p *Plan) targetFlags(names []string) []string {
	var out []string
	for _, n := range names {
		if t := p.TargetNamed(n); t != nil {
			out = append(out, "--target", t.Name+"="+t.DSN)
		}
	}
	return out
}

// Argv is the command line of a command, loadgen or run item. resultJSON
// is where a run's loadgen writes its result.
func (p *Plan) Argv(it Item, attempt int, resultJSON string) ([]string, error) {
	if it.Step != nil {
		if it.Step.Command != "" {
			return p.OnHost(it.Step.On, []string{"/bin/sh", "-c", it.Step.Command})
		}
		args, err := it.Step.loadgenArgs()
		if err != nil {
			return nil, fmt.Errorf("step %s: loadgen arguments: %w", it.ID, err)
		}
		return append(append([]string{p.LoadgenBin()}, args...), p.targetFlags(it.Step.Targets)...), nil
	}
	if it.Phase != PhaseRun {
		return nil, nil
	}
	r := it.Run
	if r.Command != "" {
		return []string{"/bin/sh", "-c", r.Command}, nil
	}
	if r.Fio != "" {
		return fioArgv(r, it.Threads, filepath.Dir(resultJSON))
	}
	argv := []string{p.LoadgenBin(), r.Workload, "run",
		"--time", strconv.Itoa(int((r.Duration.D() + time.Second - 1) / time.Second)),
		"--scenario", r.ScenarioLabel(), "--run-id", p.RunID(it, attempt), "--result-json", resultJSON}
	if it.Threads > 0 {
		argv = append(argv, "--threads", strconv.Itoa(it.Threads))
	}
	argv = append(argv, p.targetFlags(r.Targets)...)
	extra, err := r.args()
	if err != nil {
		return nil, fmt.Errorf("run %s: args: %w", r.Name, err)
	}
	return append(argv, extra...), nil
}
