package experiment

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
)

// Dry run: every step of a plan with the command it would run, nothing run.

// DryRun prints every step with its command; destructive ones are flagged.
// A step on another host shows the host and the plan's own command; the
// session guard that wraps it and the transport's quoting are said once
// (DryRunVerbose prints each full line).
func DryRun(p *plan.Plan, w io.Writer) error { return dryRun(p, w, redactor{}, false) }

// DryRunVerbose is DryRun with every remote step's full local command line
// and the line its remote shell runs, guard and quoting included.
func DryRunVerbose(p *plan.Plan, w io.Writer) error { return dryRun(p, w, redactor{}, true) }

// DryRunFile is DryRun (verbose: DryRunVerbose) of a plan as written: its
// ${NAME} expanded from src.Getenv, the secret ones hidden in the output.
func DryRunFile(src plan.Source, w io.Writer, verbose bool) error {
	p, err := plan.Load(src, Kinds())
	if err != nil {
		return err
	}
	return dryRun(p, w, redactor{secretsOf(src)}, verbose)
}

func dryRun(p *plan.Plan, w io.Writer, r redactor, verbose bool) error {
	items, err := plan.Steps(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "experiment %s: %d steps\n", p.Name, len(items))
	if !verbose {
		dryRunHosts(p, items, w, r)
	}
	for i, it := range items {
		flag := ""
		if it.Destructive {
			flag = "  [DESTRUCTIVE]"
		}
		line, err := dryRunLine(p, it, r, verbose)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%3d %-12s %-28s %s%s\n", i+1, it.Phase, it.ID, line, flag)
	}
	return nil
}

// dryRunHosts says once how the plan's steps on other hosts run: each
// host's command prefix, and the session guard around a remote shell's
// command.
func dryRunHosts(p *plan.Plan, items []plan.Item, w io.Writer, r redactor) {
	on, guarded := map[string]bool{}, false
	for _, it := range items {
		if it.Step != nil && it.Step.Command != "" && onHost(p, it) {
			on[it.Step.On] = true
			guarded = guarded || p.RemoteLine(it) != ""
		}
	}
	if p.Hosts != nil {
		for _, h := range []struct {
			name string
			host *plan.Host
		}{{plan.HostDB, p.Hosts.DB}, {plan.HostClient, p.Hosts.Client}} {
			if on[h.name] && h.host != nil {
				fmt.Fprintf(w, "host %s: each \"on %s\" step runs through %s\n", h.name, h.name, r.text(h.host.Exec))
			}
		}
	}
	if guarded {
		fmt.Fprintln(w, "remote steps run under walab's session guard (setsid on the host; the session is recorded, and ended when walab's connection drops or a resume finds it); --verbose prints each full line, as each step's log does")
	}
}

// onHost: the step runs through a host's command prefix.
func onHost(p *plan.Plan, it plan.Item) bool {
	argv, err := p.OnHost(it.Step.On, []string{"/bin/sh", "-c", it.Step.Command})
	return err == nil && len(argv) > 3
}

// dryRunLine is one step's command as the dry run shows it.
func dryRunLine(p *plan.Plan, it plan.Item, r redactor, verbose bool) (string, error) {
	switch it.Phase {
	case plan.PhaseChecks:
		var names []string
		for _, c := range p.Checks {
			names = append(names, c.Check+"("+c.OnFailMode()+")")
		}
		return "checks: " + strings.Join(names, ", "), nil
	case plan.PhaseCompare:
		return fmt.Sprintf("walab compare --baseline %s --candidate %s (device %s, %s)", p.Compare.Baseline, p.Compare.Candidate, p.Device, p.Prometheus), nil
	case plan.PhaseReport:
		return "write report.md", nil
	}
	argv, err := p.Argv(it, 1, "RUN_DIR/result.json")
	if err != nil {
		return "", err
	}
	var line string
	switch {
	case !verbose && it.Step != nil && it.Step.Command != "" && onHost(p, it):
		line = "on " + it.Step.On + ": " + r.text(it.Step.Command)
	default:
		line = shellQuote(r.argv(argv))
		if rl := p.RemoteLine(it); rl != "" {
			line += "\n" + strings.Repeat(" ", 46) + "remote shell runs: " + r.text(rl)
		}
	}
	if it.Phase == plan.PhaseRun {
		prof := ""
		if p.Profile != 0 {
			prof = fmt.Sprintf(", CPU profile %s from %s", time.Duration(p.Profile), p.DBExporter())
		}
		line += fmt.Sprintf("   (fingerprint at start and end%s%s)", prof, durNote(it.Expected))
	}
	if it.Run != nil && it.Run.UntilSteady != nil {
		u := it.Run.UntilSteady
		line += fmt.Sprintf("   (ends once WA holds for %d rounds within %g%% drift, at most %s)", u.WindowOrDefault(), 100*u.DriftOrDefault(), u.Max.D())
	}
	if it.Step != nil && it.Step.Written > 0 {
		line += fmt.Sprintf("   (stopped once the drive took %.3g capacities of host writes)", it.Step.Written)
	}
	return line, nil
}

func durNote(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return ", " + d.String()
}

// shellQuote is argv as the user would type it: a shell command line as
// it is, other argv quoted word by word.
func shellQuote(argv []string) string {
	if len(argv) == 3 && argv[0] == "/bin/sh" && argv[1] == "-c" {
		return argv[2]
	}
	return plan.QuoteWords(argv)
}
