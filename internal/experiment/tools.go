package experiment

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/walab/walab/internal/buildinfo"
)

// loadgenVersion is `loadgen --version` of the plan's loadgen, read once
// per executor; "" when it does not answer (an older loadgen).
func (e *Executor) loadgenVersion(ctx context.Context) string {
	e.loadgenOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, e.Plan.loadgenBin(), "--version").CombinedOutput()
		if in, ok := buildinfo.ParsePrint(string(out)); err == nil && ok {
			// --version's several lines, as one (fingerprint tables).
			e.loadgenVer = fmt.Sprintf("%s (commit %s, %s)", in.Version, in.Commit(), in.GoVersion)
		} else if err == nil {
			e.loadgenVer = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "loadgen version "))
		}
	})
	return e.loadgenVer
}

// usesLoadgen: some step or run of the plan runs loadgen.
func (p *Plan) usesLoadgen() bool {
	for _, r := range p.Runs {
		if r.Workload != "" {
			return true
		}
	}
	for _, list := range [][]Step{p.Prepare, p.Reset, p.Precondition} {
		for _, s := range list {
			if s.Loadgen != "" {
				return true
			}
		}
	}
	return false
}
