package plan

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mattn/go-shellwords"
)

// The transport: how a step marked on: db reaches the database host
// through the plan's command prefix (hosts.db.exec).
//
// A prefix is one of two kinds, and walab must know which, since the same
// words mean different commands to each:
//
//   - remote shell (ssh, autossh, and anything that ends in ssh: timeout 60
//     ssh db, sshpass -p x ssh db, env X=1 ssh db): the prefix joins its
//     arguments into one line that a shell on the other host splits again.
//     walab passes the command as one quoted word, wrapped in remoteGuard.
//   - argv (ip netns exec NAME, sudo -u USER, nsenter ..., env X=1,
//     timeout 60): the prefix runs the words after it as they are.
//
// walab reads the prefix word by word: known local wrappers (env, timeout,
// sshpass, nice, ionice, setsid, stdbuf, sudo, doas, taskset, chrt) are
// stepped over with their options; ssh or autossh make it a remote shell;
// ip netns exec, nsenter and chroot run argv; the end of the prefix, too.
// Any other program is refused: walab cannot tell what it does with its
// arguments, and guessing wrong ran `rm -rf ./*` in the remote home instead
// of /data. hosts.db.remote_shell: true|false says it for such a prefix.

// transport is a host's parsed command prefix.
type transport struct {
	prefix []string
	remote bool // joins its arguments into a line for a remote shell
}

// wrapper is a local program that runs the command after its options.
type wrapper struct {
	argOpts    string   // short options that take an argument
	longArg    []string // long options that take an argument (--opt value)
	positional int      // words after the options before the command (timeout's duration)
	assigns    bool     // NAME=value words before the command (env)
}

var wrappers = map[string]wrapper{
	"env":     {argOpts: "uCS", longArg: []string{"unset", "chdir", "split-string"}, assigns: true},
	"timeout": {argOpts: "ks", longArg: []string{"kill-after", "signal"}, positional: 1},
	"sshpass": {argOpts: "pfdP"},
	"nice":    {argOpts: "n", longArg: []string{"adjustment"}},
	"ionice":  {argOpts: "cn", longArg: []string{"class", "classdata"}},
	"setsid":  {},
	"stdbuf":  {argOpts: "ioe", longArg: []string{"input", "output", "error"}},
	"sudo": {argOpts: "ughpCDrtUTR", longArg: []string{"user", "group", "host", "prompt", "close-from", "chdir",
		"role", "type", "other-user", "command-timeout", "chroot"}},
	"doas":    {argOpts: "uC"},
	"taskset": {positional: 1},
	"chrt":    {positional: 1},
	// argv-running programs that enter another namespace or root.
	"nsenter": {argOpts: "tSG", longArg: []string{"target", "setuid", "setgid"}},
	"chroot":  {longArg: []string{"userspec", "groups"}, positional: 1},
}

// sshArgOpts are ssh's options that take an argument (ssh(1) SYNOPSIS);
// autossh adds -M.
const sshArgOpts = "BbcDEeFIiJLlmOoPpQRSWwM"

// hostTransport parses the named host's prefix; nil for a step that runs
// where walab runs.
func (p *Plan) hostTransport(on string) (*transport, error) {
	h := p.host(on)
	if on == "" || on == HostClient && (h == nil || h.Exec == "") {
		return nil, nil
	}
	if h == nil || h.Exec == "" {
		return nil, fmt.Errorf("on: %s needs hosts.%s.exec", on, on)
	}
	return parseTransport(on, h)
}

func parseTransport(name string, h *Host) (*transport, error) {
	prefix, err := splitWords(h.Exec)
	if err != nil {
		return nil, fmt.Errorf("hosts.%s.exec: %w", name, err)
	}
	if len(prefix) == 0 {
		return nil, fmt.Errorf("hosts.%s.exec %q: not a command prefix", name, h.Exec)
	}
	t := &transport{prefix: prefix}
	remote, err := classify(prefix)
	if h.RemoteShell != nil {
		t.remote = *h.RemoteShell
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hosts.%s.exec %q: %w", name, h.Exec, err)
	}
	t.remote = remote
	return t, nil
}

// classify walks the prefix's wrappers to the program that decides what
// becomes of the command's words.
func classify(w []string) (remote bool, err error) {
	for i := 0; i < len(w); {
		prog := filepath.Base(w[i])
		switch {
		case prog == "ssh" || prog == "autossh":
			return true, sshProblems(prog, w[i+1:])
		case prog == "ip" && len(w) >= i+4 && w[i+1] == "netns" && w[i+2] == "exec":
			i += 4
			continue
		}
		wr, ok := wrappers[prog]
		if !ok {
			return false, fmt.Errorf("walab cannot tell whether %s hands the command to a remote shell as one line (as ssh does: "+
				"walab then quotes it) or runs its words as they are (as ip netns exec does): start the prefix with ssh, "+
				"or say which with remote_shell: true (a remote shell line) or remote_shell: false (words as they are) beside exec", prog)
		}
		i = wr.skip(w, i+1)
	}
	return false, nil
}

// skip returns the index of the first word after the wrapper's options,
// assignments and positional words, starting at i.
func (wr wrapper) skip(w []string, i int) int {
	i = skipOptions(w, i, wr.argOpts, wr.longArg)
	for wr.assigns && i < len(w) && strings.Contains(w[i], "=") && !strings.HasPrefix(w[i], "-") {
		i++
	}
	return min(i+wr.positional, len(w))
}

// skipOptions steps over getopt-style options from i: clusters (-tt),
// attached (-p2222, --opt=val) and separate arguments, up to "--".
func skipOptions(w []string, i int, argOpts string, longArg []string) int {
	for i < len(w) && strings.HasPrefix(w[i], "-") && w[i] != "-" {
		a := w[i]
		i++
		if a == "--" {
			break
		}
		if long, ok := strings.CutPrefix(a, "--"); ok {
			if !strings.Contains(long, "=") && slices.Contains(longArg, long) {
				i++
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(argOpts, a[j]) >= 0 {
				if j == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return i
}

// sshProblems refuses ssh options that break a step: -n and -f take ssh's
// standard input away, which tells the remote guard its step is over, and
// -N runs no command; a prefix must name the host.
func sshProblems(prog string, args []string) error {
	for i := 0; i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--"; i++ {
		a := args[i]
		for j := 1; j < len(a); j++ {
			if c := a[j]; c == 'n' || c == 'f' || c == 'N' {
				return fmt.Errorf("%s -%c: walab holds ssh's standard input open while a step runs, so that the command on the "+
					"database host dies with its step (docs/two-hosts.md); drop -%c", prog, c, c)
			}
			if strings.IndexByte(sshArgOpts, a[j]) >= 0 {
				if j == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	if skipOptions(args, 0, sshArgOpts, nil) >= len(args) {
		return fmt.Errorf("%s names no host: write e.g. %s -o BatchMode=yes db-server", prog, prog)
	}
	return nil
}

// RemoteSessionMark starts the line the guard writes to its standard
// error: the mark, the session id, its leader's start time, the boot id.
const RemoteSessionMark = "walab-remote-session "

// remoteGuard runs a step's command on the database host, under /bin/sh
// there, so that it dies with its step. ssh gives no signal to the remote
// command when the connection ends (no pty), so the guard watches its
// standard input instead: walab holds the write end of ssh's standard
// input for as long as the step runs, and never writes to it. When the
// runner dies (kill -9 included), times the step out or is interrupted,
// ssh ends or reads end of file, the remote side of the channel closes,
// and the guard kills the command's whole session (setsid). The command
// itself gets /dev/null as standard input: nothing waits on a prompt.
// The guard reports the session on its standard error (RemoteSession):
// when it cannot end the session itself, resume does.
const remoteGuard = `exec 3<&0 </dev/null; setsid "$@" 3<&- & c=$!; ` +
	`if read -r l 2>/dev/null </proc/"$c"/stat && read -r b </proc/sys/kernel/random/boot_id; then ` +
	`l=${l##*\) }; set -- $l; printf '` + RemoteSessionMark + `%s %s %s\n' "$c" "${20}" "$b" >&2; fi; ` +
	`{ while read -r _ <&3; do :; done; kill -KILL -"$c" "$c"; } >/dev/null 2>&1 & w=$!; ` +
	`exec 3<&-; wait "$c"; s=$?; kill "$w" 2>/dev/null; exit "$s"`

// argv is the local command line that runs argv through the transport.
func (t *transport) argv(argv []string) []string {
	out := append([]string{}, t.prefix...)
	if !t.remote {
		return append(out, argv...)
	}
	return append(out, remoteLine(argv))
}

// remoteLine is the line a remote shell gets for argv: the guard, then
// the command, each word quoted.
func remoteLine(argv []string) string {
	return QuoteWords(append([]string{"/bin/sh", "-c", remoteGuard, "walab-remote"}, argv...))
}

var plainArg = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// QuoteWords is argv as one line for a shell: words that need
// it are quoted.
func QuoteWords(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		if !plainArg.MatchString(a) {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// OnHost prefixes a command's argv with the host's transport.
func (p *Plan) OnHost(on string, argv []string) ([]string, error) {
	t, err := p.transport(on)
	if t == nil || err != nil {
		return argv, err
	}
	return t.argv(argv), nil
}

// RemoteLine is the exact line the database host's shell runs for a
// command item, or "" when the item runs locally or through an argv
// prefix: the dry-run and the step log show it.
func (p *Plan) RemoteLine(it Item) string {
	if it.Step == nil || it.Step.Command == "" {
		return ""
	}
	t, err := p.transport(it.Step.On)
	if t == nil || err != nil || !t.remote {
		return ""
	}
	return remoteLine([]string{"/bin/sh", "-c", it.Step.Command})
}

// splitWords splits a plan's command line (fio, loadgen arguments, a host
// prefix) into words as a shell would, and refuses an unquoted ;, &, |, <
// or >: go-shellwords stops there and drops the rest of the line, so
// --mysql-password=a&b --tables 2 would become the password a. Quote
// the character, or use a command step, which runs in a shell.
func splitWords(line string) ([]string, error) {
	p := shellwords.NewParser()
	args, err := p.Parse(line)
	if err != nil {
		return nil, err
	}
	if p.Position >= 0 {
		return nil, fmt.Errorf("%q: unquoted %q at byte %d: these are no shell lines (quote the character)", line, line[p.Position], p.Position)
	}
	return args, nil
}

// RemoteShellArgv is the local command line that hands argv, quoted as one
// line, to the remote shell of host on, without the guard (resume's end of
// a recorded remote session); an error when on's prefix is no remote
// shell.
func (p *Plan) RemoteShellArgv(on string, argv []string) ([]string, error) {
	t, err := p.transport(on)
	if err == nil && (t == nil || !t.remote) {
		err = fmt.Errorf("hosts.%s.exec is no remote shell any more", on)
	}
	if err != nil {
		return nil, err
	}
	return append(append([]string{}, t.prefix...), QuoteWords(argv)), nil
}
