package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/placement"
)

// wantPlacement: expect run means off for a run whose scenario is
// baseline, on for any other.
func wantPlacement(c plan.Check, run *plan.Run) bool {
	if c.Expect == "run" {
		return run.ScenarioLabel() != "baseline"
	}
	return c.Expect == "on"
}

func (e *Env) checkPlacement(ctx context.Context, c plan.Check, run *plan.Run) (string, error) {
	want := wantPlacement(c, run)
	d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
	if d == nil {
		return "", err
	}
	var on bool
	var what string
	switch {
	case d.Simulated && d.SimPlacement != nil:
		on, what = *d.SimPlacement, "simulated placement"
	case d.Simulated:
		return "", fmt.Errorf("simulated drive: placement state not readable: %v", err)
	default:
		streams, fdp := d.Directives["streams"], d.FDP != nil && *d.FDP
		on, what = streams || fdp, fmt.Sprintf("streams directive enabled=%v, FDP enabled=%v", streams, fdp)
	}
	msg := fmt.Sprintf("%s: %s (scenario %s expects %s)", what, onOff(on), run.ScenarioLabel(), onOff(want))
	// With walab's filesystem writing the drive, its policy, not the
	// kernel's missing write streams, says where the files' writes go.
	if n := filePlacementNote(d); n != "" {
		msg += "; " + n
	} else if n := hintsNote(d); n != "" {
		msg += "; " + n
	}
	if on != want {
		return "", fmt.Errorf("%s", msg)
	}
	if c.Daemon != "" && !d.Simulated {
		running, known := d.Daemons[c.Daemon]
		if !known {
			return "", fmt.Errorf("%s; the exporter does not watch placement daemon %q", msg, c.Daemon)
		}
		if running != want {
			return "", fmt.Errorf("%s; placement daemon %s is %s", msg, c.Daemon, runningWord(running))
		}
		msg += "; " + c.Daemon + " " + runningWord(running)
	}
	if len(c.Targets) > 0 && !d.Simulated {
		obs, err := e.observePlacement(ctx, c, run, d)
		if err != nil {
			return "", fmt.Errorf("%s; %w", msg, err)
		}
		msg += "; " + obs
	}
	return msg, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

var placementCheck = checkKind{
	keys:  "expect (on|off|run), daemon, targets with handles (shared|separate|run)",
	needs: needs{exporter: true, device: true},
	validate: func(_ *plan.Plan, c plan.Check) []string {
		var out []string
		if c.Expect != "on" && c.Expect != "off" && c.Expect != "run" {
			out = append(out, fmt.Sprintf("expect %q: want on, off or run (the run's scenario decides: baseline off, others on)", c.Expect))
		}
		switch {
		case c.Handles != "" && c.Handles != handlesShared && c.Handles != handlesSeparate && c.Handles != handlesRun:
			out = append(out, fmt.Sprintf("handles %q: want shared, separate or run (the run's scenario decides: baseline shared, others separate)", c.Handles))
		case c.Handles != "" && len(c.Targets) == 0:
			out = append(out, "handles needs targets: the observation follows each target's datadir to its namespace")
		}
		if c.Path != "" {
			out = append(out, "path: placement observes the targets' datadirs, give targets")
		}
		return out
	},
	run: func(e *Env, ctx context.Context, c plan.Check, run *plan.Run) (string, error) {
		return e.checkPlacement(ctx, c, run)
	},
}

func init() { register("placement", placementCheck) }

// hintsNote says, before a run, whether a file's writes can carry a
// placement hint to this drive (the exporter's
// walab_placement_hints_effective): with FDP on and a kernel without write
// streams for files (Linux 6.12), MySQL's writes reach no placement
// handle, and placement can only come from the namespace a file is on.
func hintsNote(d *fingerprint.Drive) string {
	switch {
	case d.Simulated || d.Hints == "":
		return ""
	case d.Hints == "effective: "+placement.ReasonKernelStreams:
		return "files' write hints reach the drive (kernel streams)"
	case d.FDP != nil && *d.FDP:
		return fmt.Sprintf("no file write reaches an FDP placement handle on this kernel (%s): MySQL's writes go to their namespace's default handle, so placement comes only from the namespace layout", strings.TrimPrefix(d.Hints, "effective: "))
	}
	return "files' write hints do not reach the drive (" + d.Hints + ")"
}
