package experiment

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/walab/walab/internal/buildinfo"
	"github.com/walab/walab/internal/experiment/plan"
)

// toolVersions are the versions of the programs an experiment's runs
// start, each asked once per experiment: the fingerprints record them.
type toolVersions struct {
	loadgenOnce sync.Once
	loadgenVer  string
	mu          sync.Mutex
	vers        map[string]string // tool -> its --version line ("" when it failed)
}

// loadgen is `loadgen --version` of the plan's loadgen (bin), read once
// per executor; "" when it does not answer (an older loadgen).
func (tv *toolVersions) loadgen(ctx context.Context, bin string) string {
	tv.loadgenOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
		if in, ok := buildinfo.ParsePrint(string(out)); err == nil && ok {
			// --version's several lines, as one (fingerprint tables).
			tv.loadgenVer = fmt.Sprintf("%s (commit %s, %s)", in.Version, in.Commit(), in.GoVersion)
		} else if err == nil {
			tv.loadgenVer = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "loadgen version "))
		}
	})
	return tv.loadgenVer
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

// version is the first line `tool --version` prints (fio-3.33,
// sysbench 1.0.20), once per tool and experiment; "" when it fails.
func (tv *toolVersions) version(ctx context.Context, tool string) string {
	tv.mu.Lock()
	defer tv.mu.Unlock()
	if v, ok := tv.vers[tool]; ok {
		return v
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, tool, "--version").Output()
	v := ""
	if line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n"); err == nil {
		v = strings.TrimSpace(line)
	}
	if tv.vers == nil {
		tv.vers = map[string]string{}
	}
	tv.vers[tool] = v
	return v
}
