package experiment

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/mattn/go-shellwords"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/fingerprint"
)

// treatment is a run's placement switch as its fingerprint records it:
// the between steps' commands with their host, and the SHA-256 of each
// file they name (astream's rule files), read on that host. The hash is
// only of files that exist there: a word that is no file is no file. The
// commands and the hash commands are worked out once per run step
// (treatmentProbe) and read again at each fingerprint.
func (rs *runStep) treatment(ctx context.Context, r *plan.Run) *fingerprint.Treatment {
	if r == nil || len(r.Between) == 0 {
		return nil
	}
	if rs.probe == nil {
		rs.probe = newTreatmentProbe(rs.plan, r, rs.redact)
	}
	t := &fingerprint.Treatment{Commands: rs.probe.commands}
	for _, h := range rs.probe.hashes {
		sums, err := h.run(ctx)
		if err != "" {
			t.Errors = append(t.Errors, err)
		}
		for p, sum := range sums {
			if t.Files == nil {
				t.Files = map[string]string{}
			}
			t.Files[p] = sum
		}
	}
	return t
}

// treatmentProbe is what a run's treatment reads: its between steps'
// commands as recorded, and a hash command for each step naming files.
type treatmentProbe struct {
	commands []string
	hashes   []hashCommand
}

func newTreatmentProbe(p *plan.Plan, r *plan.Run, red redactor) *treatmentProbe {
	tp := &treatmentProbe{}
	for _, s := range r.Between {
		cmd := s.Command
		if cmd == "" {
			cmd = "loadgen " + s.Loadgen
		}
		tp.commands = append(tp.commands, "on "+orClient(s.On)+": "+red.text(cmd))
		if words := fileWords(s.Command); len(words) > 0 {
			tp.hashes = append(tp.hashes, newHashCommand(p, s.On, words))
		}
	}
	return tp
}

func orClient(on string) string {
	if on == "" {
		return plan.HostClient
	}
	return on
}

// fileWords are the words of a command that may name a file: not an
// option, with a / or a file name's dot (rule1.txt); an option's
// --x=value gives its value.
func fileWords(cmd string) []string {
	words, err := shellwords.Parse(cmd)
	if err != nil {
		return nil
	}
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			_, v, ok := strings.Cut(w, "=")
			if !ok {
				continue
			}
			w = v
		}
		if strings.Contains(w, "/") && !strings.Contains(w, "://") || strings.Contains(strings.TrimPrefix(w, "."), ".") && !strings.ContainsAny(w, "=:'\"") {
			out = append(out, w)
		}
	}
	return out
}

// hashScript prints "sha256  path" for each argument that is a regular file.
const hashScript = `for f; do [ -f "$f" ] && sha256sum -- "$f"; done; true`

// hashCommand hashes the words that are files on a host (db or client).
type hashCommand struct {
	on   string
	argv []string
	err  string // the host's transport refused the command
}

func newHashCommand(p *plan.Plan, on string, words []string) hashCommand {
	argv, err := p.OnHost(on, append([]string{"sh", "-c", hashScript, "walab-hash"}, words...))
	if err != nil {
		return hashCommand{on: on, err: "hash of the treatment's files: " + err.Error()}
	}
	return hashCommand{on: on, argv: argv}
}

func (h hashCommand) run(ctx context.Context) (map[string]string, string) {
	if h.err != "" {
		return nil, h.err
	}
	argv, on := h.argv, h.on
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, "hash of the treatment's files on " + orClient(on) + ": " + err.Error() + ": " + strings.TrimSpace(stderr.String())
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), "  ")
		if ok && len(sum) == 64 {
			sums[path] = sum
		}
	}
	return sums, ""
}
