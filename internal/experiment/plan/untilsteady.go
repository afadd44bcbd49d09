package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// UntilSteady ends a run once its WA per round has held for Window rounds
// (SNIA's excursion and slope limits, and a least-squares drift across the
// window of at most Drift of its mean), or at Max with "not steady": fio's
// ss= (ss_dur, the criterion) in walab's terms. The rounds are the plan's
// round; WA comes from the exporter's drive counters, so it works alike on
// the simulated drive and a real one with hour-long rounds.
type UntilSteady struct {
	Window int      `yaml:"window"` // rounds; default 5
	Drift  Percent  `yaml:"drift"`  // share of the window's mean; default 3%
	Max    Duration `yaml:"max"`    // the run ends here at the latest
}

// Percent is a share written "3%".
type Percent float64

func (p *Percent) UnmarshalYAML(n *yaml.Node) error {
	s, ok := strings.CutSuffix(strings.TrimSpace(n.Value), "%")
	v, err := strconv.ParseFloat(s, 64)
	if !ok || err != nil || !(v > 0) || v > 100 {
		return fmt.Errorf("line %d: %q: want a percentage in (0%%, 100%%], e.g. 3%%", n.Line, n.Value)
	}
	*p = Percent(v / 100)
	return nil
}

// DefaultSteadyWindow and DefaultSteadyDrift are UntilSteady's defaults.
const (
	DefaultSteadyWindow = 5
	DefaultSteadyDrift  = 0.03
)

// WindowOrDefault and DriftOrDefault read a zero field as the default.
func (u UntilSteady) WindowOrDefault() int {
	if u.Window == 0 {
		return DefaultSteadyWindow
	}
	return u.Window
}

func (u UntilSteady) DriftOrDefault() float64 {
	if u.Drift == 0 {
		return DefaultSteadyDrift
	}
	return float64(u.Drift)
}

// untilSteady checks a run's until_steady: a window of 2 or more rounds, a
// max that holds at least one window of the plan's round, an exporter to
// read the drive from, and a loadgen duration that does not end the run
// before max.
func (v *validator) untilSteady(what string, r Run) {
	u := r.UntilSteady
	if u == nil {
		return
	}
	if r.Fio != "" {
		v.add(r.Line, "%s: until_steady is for loadgen and command runs (fio has its own ss=)", what)
	}
	if u.Window != 0 && u.Window < 2 {
		v.add(r.Line, "%s: until_steady.window %d: at least 2 rounds", what, u.Window)
	}
	if v.p.Exporter == "" {
		v.add(r.Line, "%s: until_steady reads WA from the drive: the plan needs exporter", what)
	}
	round := time.Duration(v.p.Round)
	switch {
	case u.Max <= 0:
		v.add(r.Line, "%s: until_steady.max missing (the longest the run may last)", what)
	case round <= 0:
		v.add(r.Line, "%s: until_steady needs the plan's round", what)
	case u.Max.D() < time.Duration(u.WindowOrDefault())*round:
		v.add(r.Line, "%s: until_steady.max %s is shorter than its window of %d rounds of %s", what, u.Max.D(), u.WindowOrDefault(), round)
	}
	if r.Workload != "" && r.Duration > 0 && r.Duration < u.Max {
		v.add(r.Line, "%s: duration %s ends the run before until_steady.max %s; give duration: %s (or more)", what, r.Duration.D(), u.Max.D(), u.Max.D())
	}
}
