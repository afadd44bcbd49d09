package compare

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// factWindow is what Facts' queries are bounded by: the run, its devices,
// the compared rounds' window (win, ending at winEnd) and the run's span.
type factWindow struct {
	run     Run
	devices []string
	dev     string // the devices' selector, on the source's host
	win     string
	winEnd  time.Time
	runDur  string
}

func (s Source) factWindow(run Run, devices []string, compared []Hour, round time.Duration) factWindow {
	winStart := compared[0].At.Add(-round)
	winEnd := compared[len(compared)-1].At
	return factWindow{
		run: run, devices: devices, dev: deviceSelector(devices) + s.onHost(),
		win: model.Duration(winEnd.Sub(winStart)).String(), winEnd: winEnd, runDur: runSpan(run),
	}
}

// deviceSelector is the label matcher of the drives a comparison reads
// facts from: one device, or an array's controllers.
func deviceSelector(devices []string) string {
	if len(devices) == 1 {
		return fmt.Sprintf("device=%q", devices[0])
	}
	quoted := make([]string, len(devices))
	for i, d := range devices {
		quoted[i] = regexp.QuoteMeta(d)
	}
	return fmt.Sprintf("device=~%q", strings.Join(quoted, "|"))
}
