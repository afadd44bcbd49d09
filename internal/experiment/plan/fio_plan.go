package plan

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FioOutput is the file in a run's directory where fio writes its JSON.
const FioOutput = "fio.json"

// fioLine is a run's fio command line, split into words.
type fioLine struct {
	args     []string // as typed, fio first
	jobFiles []string // positional arguments: job files
	names    int      // --name options: jobs on the command line
	format   string   // the line's --output-format (json or json+), or ""
}

// fioOption splits -opt=val, --opt=val, -opt and --opt.
func fioOption(a string) (name, val string, ok bool) {
	if !strings.HasPrefix(a, "-") {
		return "", "", false
	}
	name, val, _ = strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name, val, true
}

// parseFio reads a run's fio line; the problems are returned, not printed.
func parseFio(line string) (*fioLine, []string) {
	args, err := splitWords(line)
	if err != nil {
		return nil, []string{fmt.Sprintf("fio %q: %v", line, err)}
	}
	if len(args) == 0 || filepath.Base(args[0]) != "fio" {
		return nil, []string{fmt.Sprintf("fio %q: write fio's command line, starting with fio", line)}
	}
	f := &fioLine{args: args}
	var problems []string
	for _, a := range args[1:] {
		name, val, ok := fioOption(a)
		if !ok {
			// Options are written -opt=val: a bare word is a job file.
			f.jobFiles = append(f.jobFiles, a)
			continue
		}
		switch name {
		case "output":
			problems = append(problems, fmt.Sprintf("fio: %s: walab sets fio's output file (runs/<run id>/%s)", a, FioOutput))
		case "output-format":
			if val != "json" && val != "json+" {
				problems = append(problems, fmt.Sprintf("fio: %s: walab reads fio's JSON; the line may ask for json or json+ only", a))
			}
			f.format = val
		case "status-interval":
			problems = append(problems, fmt.Sprintf("fio: %s: walab reads fio's one final report (a status interval writes one report per interval)", a))
		case "name":
			f.names++
		}
	}
	return f, problems
}

// devices are the raw devices the line's jobs open (fio_guard.go).
func (f *fioLine) devices() ([]string, error) {
	g := f.guard(1, nil)
	if len(g.problems) > 0 {
		return nil, fmt.Errorf("fio: %s", strings.Join(g.problems, "; "))
	}
	return g.devices, nil
}

// optionValues are the values of the command line's -name=value options.
func (f *fioLine) optionValues(option string) []string {
	var out []string
	for _, a := range f.args[1:] {
		if name, val, ok := fioOption(a); ok && name == option {
			out = append(out, val)
		}
	}
	return out
}

// runtime is the line's -runtime= (fio's default unit: seconds), or 0.
func (f *fioLine) runtime() time.Duration {
	var d time.Duration
	for _, a := range f.args[1:] {
		name, val, ok := fioOption(a)
		if !ok || name != "runtime" {
			continue
		}
		if n, err := strconv.ParseUint(val, 10, 32); err == nil {
			d = time.Duration(n) * time.Second
		} else if x, err := time.ParseDuration(val); err == nil {
			d = x
		}
	}
	return d
}

// fioArgv is the command walab runs: the line as typed, then the sweep's
// --numjobs (it applies to the line's job), --output-format=json unless
// the line asks for json or json+ itself, and the output file in the
// run's directory.
func fioArgv(r *Run, threads int, runDir string) ([]string, error) {
	f, problems := r.fioLine()
	if len(problems) > 0 {
		return nil, fmt.Errorf("run %s: %s", r.Name, strings.Join(problems, "; "))
	}
	argv := append([]string{}, f.args...)
	if threads > 0 {
		argv = append(argv, "--numjobs="+strconv.Itoa(threads))
	}
	if f.format == "" {
		argv = append(argv, "--output-format=json")
	}
	return append(argv, "--output="+filepath.Join(runDir, FioOutput)), nil
}

// expected is a run's planned duration: its duration, or fio's runtime.
func (r *Run) expected() time.Duration {
	if r.Fio != "" {
		if f, problems := r.fioLine(); len(problems) == 0 {
			return f.runtime()
		}
	}
	return r.Duration.D()
}

// fioRun validates a run of the fio kind.
func (v *validator) fioRun(what string, r Run) {
	if r.Command != "" || r.Workload != "" {
		v.add(r.Line, "%s: give one of workload (loadgen), command or fio", what)
	}
	if r.Duration != 0 {
		v.add(r.Line, "%s: duration: fio's runtime is in its line (-runtime=)", what)
	}
	if len(r.Targets) > 0 {
		v.add(r.Line, "%s: targets apply to loadgen runs, not fio", what)
	}
	f, problems := r.fioLine()
	for _, m := range problems {
		v.add(r.Line, "%s: %s", what, m)
	}
	if f == nil {
		return
	}
	if r.Sweep != nil && (len(f.jobFiles) > 0 || f.names != 1) {
		v.add(r.Line, "%s: sweep sets --numjobs of the line's one job (--name=...): a job file or several jobs do not take it (fio --showcmd JOBFILE prints a job as a command line)", what)
	}
	numjobs := 1
	if r.Sweep != nil {
		numjobs = slices.Max(append(r.Sweep.Threads, 1))
	}
	g := f.guard(numjobs, v.free)
	for _, m := range g.problems {
		v.add(r.Line, "%s: %s", what, m)
	}
	if r.Destructive {
		return
	}
	if len(g.devices) > 0 {
		v.add(r.Line, "%s: fio on the raw device %s overwrites it: add destructive: true (walab then checks before the run that no filesystem, swap, md or dm uses it)", what, strings.Join(g.devices, ", "))
	}
	for _, n := range g.needs {
		v.add(r.Line, "%s: fio: %s: add destructive: true if that is intended", what, n)
	}
}

// files are the paths fio's jobs write: filename= values, or "." (fio's
// default directory) when the command line names none.
func (f *fioLine) files() []string {
	var out []string
	for _, v := range append(f.optionValues("filename"), f.optionValues("directory")...) {
		out = append(out, filepath.SplitList(v)...)
	}
	if len(out) == 0 {
		out = []string{"."}
	}
	return out
}

// FioTargets are what the run's fio command line writes: the raw devices
// among its files and every path (filename= and directory= values, "."
// when it names none), as fio resolves them.
func (r *Run) FioTargets() (devices, files []string, err error) {
	f, problems := r.fioLine()
	if len(problems) > 0 {
		return nil, nil, fmt.Errorf("fio: %v", problems)
	}
	if devices, err = f.devices(); err != nil {
		return nil, nil, err
	}
	return devices, f.files(), nil
}
