package plan

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// validator collects a plan's problems section by section; each section
// is one method, in the order of the plan's keys.
type validator struct {
	p       *Plan
	kinds   CheckKinds
	loadgen LoadgenRules
	errs    Errors
	targets map[string]bool
	runs    map[string]bool
	free    func(path string) (uint64, bool) // Settings.FreeSpace
}

func (p *Plan) validate(kinds Kinds, free func(string) (uint64, bool)) Errors {
	v := &validator{p: p, kinds: kinds.Checks, loadgen: kinds.Loadgen, targets: map[string]bool{}, runs: map[string]bool{}, free: free}
	if !nameRe.MatchString(p.Name) {
		v.add(0, "name: %q must be 1-48 letters, digits, '_', '.', '-' (it is part of every run id)", p.Name)
	}
	v.targetList()
	v.steps("prepare", p.Prepare)
	v.steps("reset", p.Reset)
	v.steps("precondition", p.Precondition)
	v.checks()
	v.runList()
	v.cycles()
	v.compare()
	v.urls()
	v.hosts()
	v.profile()
	sort.SliceStable(v.errs, func(i, j int) bool { return v.errs[i].Line < v.errs[j].Line })
	return v.errs
}

func (v *validator) add(line int, format string, args ...any) {
	v.errs = append(v.errs, LineError{line, fmt.Sprintf(format, args...)})
}

func (v *validator) targetList() {
	for i, t := range v.p.Targets {
		switch {
		case !nameRe.MatchString(t.Name):
			v.add(t.Line, "targets[%d]: name %q must be 1-48 letters, digits, '_', '.', '-'", i, t.Name)
		case v.targets[t.Name]:
			v.add(t.Line, "targets[%d]: target %q defined twice", i, t.Name)
		}
		if t.DSN == "" {
			v.add(t.Line, "targets[%d] (%s): dsn missing", i, t.Name)
		}
		v.targets[t.Name] = true
	}
}

// refs reports the names that are not defined under targets.
func (v *validator) refs(line int, what string, names []string) {
	for _, n := range names {
		if !v.targets[n] {
			v.add(line, "%s: target %q is not defined under targets (defined: %s)", what, n, strings.Join(sortedKeys(v.targets), ", "))
		}
	}
}

func (v *validator) steps(phase string, list []Step) {
	for i, s := range list {
		what := fmt.Sprintf("%s[%d]", phase, i)
		if s.Name != "" {
			what += " (" + s.Name + ")"
		}
		v.step(what, s)
	}
}

func (v *validator) step(what string, s Step) {
	switch {
	case s.Command == "" && s.Loadgen == "":
		v.add(s.Line, "%s: needs a command or loadgen arguments", what)
	case s.Command != "" && s.Loadgen != "":
		v.add(s.Line, "%s: give either command or loadgen, not both", what)
	}
	if s.Loadgen != "" {
		if words, err := s.loadgenArgs(); err != nil {
			v.add(s.Line, "%s: loadgen arguments %q: %v", what, s.Loadgen, err)
		} else {
			v.loadgenLine(s.Line, what, "", true, s.Loadgen, words)
		}
	} else if len(s.Targets) > 0 {
		v.add(s.Line, "%s: targets apply to loadgen steps only", what)
	}
	v.refs(s.Line, what, s.Targets)
	if d := Destructive(s.Command + " " + s.Loadgen); d != "" && !s.Destructive {
		v.add(s.Line, "%s: %q looks destructive (%s): add destructive: true if that is intended", what, s.Command+s.Loadgen, d)
	}
	if s.Written < 0 || s.Written > 1000 {
		v.add(s.Line, "%s: written %v: want drive capacities between 0 and 1000", what, s.Written)
	}
	if s.Written > 0 && v.p.Exporter == "" {
		v.add(s.Line, "%s: written needs the exporter URL (exporter:) to read the host counter", what)
	}
}

func (v *validator) checks() {
	for i, c := range v.p.Checks {
		what := fmt.Sprintf("checks[%d] (%s)", i, c.Check)
		validate, ok := v.kinds[c.Check]
		if !ok {
			v.add(c.Line, "checks[%d]: unknown check %q (known: %s)", i, c.Check, strings.Join(sortedKeys(v.kinds), ", "))
			continue
		}
		if c.OnFail != "" && c.OnFail != "stop" && c.OnFail != "warn" {
			v.add(c.Line, "%s: on_fail %q: want stop or warn", what, c.OnFail)
		}
		v.refs(c.Line, what, c.Targets)
		var problems []string
		if validate != nil {
			problems = validate(v.p, c)
		}
		for _, m := range problems {
			v.add(c.Line, "%s: %s", what, m)
		}
	}
}

func (v *validator) runList() {
	if len(v.p.Runs) == 0 {
		v.add(0, "runs: a plan needs at least one run")
	}
	for i, r := range v.p.Runs {
		what := fmt.Sprintf("runs[%d]", i)
		if !nameRe.MatchString(r.Name) {
			v.add(r.Line, "%s: name %q must be 1-48 letters, digits, '_', '.', '-'", what, r.Name)
		} else if v.runs[r.Name] {
			v.add(r.Line, "%s: run %q defined twice", what, r.Name)
		}
		v.runs[r.Name] = true
		what += " (" + r.Name + ")"
		v.steps(r.Name+".between", r.Between)
		if r.Scenario != "" && !nameRe.MatchString(r.Scenario) {
			v.add(r.Line, "%s: scenario %q must be letters, digits, '_', '.', '-'", what, r.Scenario)
		}
		v.runKind(what, r)
		v.untilSteady(what, r)
		for _, c := range []struct{ key, cmd string }{{"command", r.Command}, {"restart", r.Restart}} {
			if d := Destructive(c.cmd); d != "" {
				v.add(r.Line, "%s: %s %q looks destructive (%s): a run or restart may not destroy data; put it in reset with destructive: true", what, c.key, c.cmd, d)
			}
		}
		v.refs(r.Line, what, r.Targets)
		v.repeats(what, r)
	}
}

// runKind: a run is a loadgen workload, an external command or fio.
func (v *validator) runKind(what string, r Run) {
	if r.Fio != "" {
		v.fioRun(what, r)
		return
	}
	if r.Destructive {
		v.add(r.Line, "%s: destructive: only a fio run may write a raw device; a destructive command belongs in reset", what)
	}
	switch {
	case r.Command != "" && r.Workload != "":
		v.add(r.Line, "%s: give either workload (loadgen) or command, not both", what)
	case r.Command == "" && r.Workload == "":
		v.add(r.Line, "%s: needs a workload (loadgen), a command or fio", what)
	case r.Workload != "":
		if len(r.Targets) == 0 {
			v.add(r.Line, "%s: targets missing (the instances loadgen drives)", what)
		}
		if r.Duration <= 0 {
			v.add(r.Line, "%s: duration missing", what)
		} else if r.Duration.D() < time.Second {
			v.add(r.Line, "%s: duration %s: loadgen counts whole seconds", what, r.Duration.D())
		}
		if words, err := r.args(); err != nil {
			v.add(r.Line, "%s: args %q: %v", what, r.Args, err)
		} else {
			v.loadgenLine(r.Line, what, r.Workload, false, r.Args, words)
		}
	}
}

// cycles: 1..1000; with more than one, every run has one repetition per
// cycle (no repeat, restart or sweep of its own).
func (v *validator) cycles() {
	if v.p.Cycles < 0 || v.p.Cycles > 1000 {
		v.add(0, "cycles %d: want 1..1000", v.p.Cycles)
	}
	if v.p.Cycles < 2 {
		return
	}
	for i, r := range v.p.Runs {
		if r.Repeat > 1 || r.Restart != "" || r.Sweep != nil {
			v.add(r.Line, "runs[%d] (%s): with cycles: %d a run is repeated once per cycle; drop its repeat, restart and sweep", i, r.Name, v.p.Cycles)
		}
	}
}

// repeats: repeat, restart, threads and the thread sweep.
func (v *validator) repeats(what string, r Run) {
	if r.Repeat < 0 || r.Repeat > 1000 {
		v.add(r.Line, "%s: repeat %d: want 1..1000", what, r.Repeat)
	}
	if r.RestartEvery && r.Restart == "" {
		v.add(r.Line, "%s: restart_every needs the restart command", what)
	}
	if r.Restart != "" && r.Repeat < 2 && !r.RestartEvery {
		v.add(r.Line, "%s: restart is run between repetitions, but repeat is %d", what, r.Repeat)
	}
	if r.Threads < 0 {
		v.add(r.Line, "%s: threads %d is negative", what, r.Threads)
	}
	if r.Sweep == nil {
		return
	}
	if len(r.Sweep.Threads) == 0 {
		v.add(r.Line, "%s: sweep.threads is empty", what)
	}
	if r.Threads != 0 {
		v.add(r.Line, "%s: give threads or sweep.threads, not both", what)
	}
	seen := map[int]bool{}
	for _, n := range r.Sweep.Threads {
		if n <= 0 || n > 100000 || seen[n] {
			v.add(r.Line, "%s: sweep.threads: %d is not a new positive thread count", what, n)
		}
		seen[n] = true
	}
}

func (v *validator) compare() {
	c := v.p.Compare
	if c == nil {
		return
	}
	for _, n := range []string{c.Baseline, c.Candidate} {
		if !v.runs[n] {
			v.add(c.Line, "compare: run %q is not defined under runs (defined: %s)", n, strings.Join(sortedKeys(v.runs), ", "))
		}
	}
	if c.Baseline == c.Candidate {
		v.add(c.Line, "compare: baseline and candidate are the same run %q", c.Baseline)
	}
	if v.p.Prometheus == "" || v.p.Device == "" {
		v.add(c.Line, "compare: needs the plan's prometheus and device")
	}
}

func (v *validator) urls() {
	for _, u := range []struct{ key, val string }{{"exporter", v.p.Exporter}, {"prometheus", v.p.Prometheus}} {
		if u.val != "" && !strings.HasPrefix(u.val, "http://") && !strings.HasPrefix(u.val, "https://") {
			v.add(0, "%s: %q: want an http:// or https:// URL", u.key, u.val)
		}
	}
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$`)

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// loadgenLine reports what the loadgen rules find wrong with a loadgen
// line (none without rules).
func (v *validator) loadgenLine(line int, what, wl string, phase bool, text string, words []string) {
	if v.loadgen == nil {
		return
	}
	for _, m := range v.loadgen(wl, phase, text, words) {
		v.add(line, "%s: %s", what, m)
	}
}
