// Package loadgenargs checks a plan's loadgen command lines against
// loadgen's registry of workloads and its flags, before anything runs. It
// links in every workload (allworkloads); the plan's validation receives
// its check as a value (plan.Kinds.Loadgen), as it does the check kinds,
// so that the plan package links none.
package loadgenargs

import (
	"fmt"
	"slices"
	"strings"

	_ "github.com/walab/walab/internal/allworkloads" // the workloads register themselves
	"github.com/walab/walab/internal/workload"
)

// Flags are loadgen's flags besides each workload's own (and the
// sysbench spellings it accepts): loadgen/internal/cli's
// TestExperimentKnowsLoadgenFlags keeps the list equal to its parser's.
var Flags = []string{
	"completion-bash", "completion-script-bash", "completion-script-zsh", "cpuprofile", "db-driver", "db-ps-mode",
	"defaults-extra-file", "drain-timeout", "events", "help", "help-long", "help-man", "histogram", "log.level",
	"max-error-rate", "max-requests", "max-retries", "max-time", "max-unreachable", "memprofile", "mysql-blocking-io", "mysql-db",
	"mysql-host", "mysql-ignore-errors", "mysql-password", "mysql-password-file", "mysql-port", "mysql-raw-read-wait",
	"mysql-socket", "mysql-user", "num-threads", "oltp-table-size", "oltp-tables-count", "percentile", "props",
	"rand-seed", "rate", "report-interval", "result-json", "run-id", "scale", "scenario", "tables", "target", "test",
	"thread-init-timeout", "threads", "time", "warmup-time", "web.config.file", "web.disable", "web.listen-address",
	"web.systemd-socket",
}

// loadgenSpec is the registered workload called name (tpcc.lua is tpcc).
func loadgenSpec(name string) (workload.Spec, bool) {
	name = strings.TrimSuffix(name[strings.LastIndexByte(name, '/')+1:], ".lua")
	for _, s := range workload.Specs() {
		if s.Name == name {
			return s, true
		}
	}
	return workload.Spec{}, false
}

func loadgenNames() string {
	var names []string
	for _, s := range workload.Specs() {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// flagNames are the flags loadgen accepts with spec's workload: its own
// and Flags.
func flagNames(spec workload.Spec) map[string]bool {
	known := map[string]bool{}
	for _, n := range Flags {
		known[n] = true
	}
	fs := &workload.FlagSet{}
	spec.Define(fs)
	for _, f := range fs.Flags() {
		known[f.Name] = true
	}
	return known
}

// Problems checks a loadgen command line (line as written, args its
// words as the plan split them) against loadgen's registry before anything
// runs: the workload (wl, or the line's first word naming one), the phase
// (when the line must give one) and every --flag, in loadgen's spellings
// (sysbench's underscores, --no-X). A legacy --test= line is left to
// loadgen. It is a plan.LoadgenRules.
func Problems(wl string, phase bool, line string, args []string) []string {
	if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--test") }) {
		return nil
	}
	var spec workload.Spec
	var ok bool
	if wl == "" {
		// loadgen takes options before its command words too: the
		// workload is the first word that names one.
		i := slices.IndexFunc(args, func(a string) bool { _, ok := loadgenSpec(a); return !strings.HasPrefix(a, "-") && ok })
		if i < 0 {
			return []string{fmt.Sprintf("loadgen %q names no workload of loadgen's (%s)", line, loadgenNames())}
		}
		wl = args[i]
	}
	if spec, ok = loadgenSpec(wl); !ok {
		return []string{fmt.Sprintf("workload %q is not one of loadgen's (%s)", wl, loadgenNames())}
	}
	var out []string
	if phase && !slices.ContainsFunc(args, func(a string) bool { return slices.Contains(spec.Phases, a) }) {
		out = append(out, fmt.Sprintf("loadgen %q names no phase of %s (%s)", line, spec.Name, strings.Join(spec.Phases, ", ")))
	}
	known := flagNames(spec)
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, _, _ := strings.Cut(a[2:], "=")
		if !strings.Contains(name, ".") {
			name = strings.ReplaceAll(name, "_", "-")
		}
		if !known[name] && !known[strings.TrimPrefix(name, "no-")] {
			out = append(out, fmt.Sprintf("loadgen flag --%s is not one of loadgen %s's (see loadgen %s run --help)", name, spec.Name, spec.Name))
		}
	}
	return out
}
