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
func DryRun(p *Plan, w io.Writer) error { return dryRun(p, w, redactor{}) }

// DryRunFile is DryRun of a plan as written: its ${NAME} expanded from
// src.Getenv, the secret ones hidden in the output.
func DryRunFile(src plan.Source, w io.Writer) error {
	p, err := plan.Load(src, CheckKinds())
	if err != nil {
		return err
	}
	return dryRun(p, w, redactor{secretsOf(src)})
}

func dryRun(p *Plan, w io.Writer, r redactor) error {
	items, err := Steps(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "experiment %s: %d steps\n", p.Name, len(items))
	for i, it := range items {
		flag := ""
		if it.Destructive {
			flag = "  [DESTRUCTIVE]"
		}
		line := ""
		switch it.Phase {
		case PhaseChecks:
			var names []string
			for _, c := range p.Checks {
				names = append(names, c.Check+"("+c.OnFailMode()+")")
			}
			line = "checks: " + strings.Join(names, ", ")
		case PhaseCompare:
			line = fmt.Sprintf("walab compare --baseline %s --candidate %s (device %s, %s)", p.Compare.Baseline, p.Compare.Candidate, p.Device, p.Prometheus)
		case PhaseReport:
			line = "write report.md"
		default:
			argv, err := p.Argv(it, 1, "RUN_DIR/result.json")
			if err != nil {
				return err
			}
			line = shellQuote(r.argv(argv))
			if rl := p.RemoteLine(it); rl != "" {
				line += "\n" + strings.Repeat(" ", 46) + "remote shell runs: " + r.text(rl)
			}
			if it.Phase == PhaseRun {
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
		}
		fmt.Fprintf(w, "%3d %-12s %-28s %s%s\n", i+1, it.Phase, it.ID, line, flag)
	}
	return nil
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
