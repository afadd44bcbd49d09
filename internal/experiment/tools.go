package experiment

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/walab/walab/internal/buildinfo"
	"github.com/walab/walab/internal/experiment/plan"
)

// loadgenVersion is `loadgen --version` of the plan's loadgen, read once
// per executor; "" when it does not answer (an older loadgen).
func (e *Executor) loadgenVersion(ctx context.Context) string {
	e.loadgenOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, e.Plan.LoadgenBin(), "--version").CombinedOutput()
		if in, ok := buildinfo.ParsePrint(string(out)); err == nil && ok {
			// --version's several lines, as one (fingerprint tables).
			e.loadgenVer = fmt.Sprintf("%s (commit %s, %s)", in.Version, in.Commit(), in.GoVersion)
		} else if err == nil {
			e.loadgenVer = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "loadgen version "))
		}
	})
	return e.loadgenVer
}

// versionTools are the benchmark programs a command: or fio: run may start
// whose --version prints a version and exits. walab runs `TOOL --version`
// only for these: any other program (a script like seed 000's
// runBenchmark.sh) might take --version for a benchmark argument and run,
// so its version is absent from the fingerprint rather than guessed.
var versionTools = map[string]bool{"fio": true, "sysbench": true, "mysqlslap": true, "mariadb-slap": true}

// runTool is the program a run starts, when it is one of versionTools:
// the first word of its fio: or command: line past VAR=value assignments,
// judged by base name. "" otherwise.
func runTool(r *plan.Run) string {
	line := r.Command
	if r.Fio != "" {
		line = r.Fio
	}
	for _, w := range strings.Fields(line) {
		if name, _, ok := strings.Cut(w, "="); ok && !strings.ContainsAny(name, "/-") {
			continue // VAR=value
		}
		if versionTools[filepath.Base(w)] {
			return w
		}
		return ""
	}
	return ""
}

// toolVersion is the first line `tool --version` prints (fio-3.33,
// sysbench 1.0.20), once per tool and experiment; "" when it fails.
func (e *Executor) toolVersion(ctx context.Context, tool string) string {
	e.toolMu.Lock()
	defer e.toolMu.Unlock()
	if v, ok := e.toolVers[tool]; ok {
		return v
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, tool, "--version").Output()
	v := ""
	if line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n"); err == nil {
		v = strings.TrimSpace(line)
	}
	if e.toolVers == nil {
		e.toolVers = map[string]string{}
	}
	e.toolVers[tool] = v
	return v
}
