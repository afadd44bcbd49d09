package experiment

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// parseRemoteSession reads the guard's line, wherever it is in line (the
// command's own output may precede it on the same line).
func parseRemoteSession(host, line string) (state.RemoteSession, bool) {
	i := strings.Index(line, plan.RemoteSessionMark)
	if i < 0 {
		return state.RemoteSession{}, false
	}
	f := strings.Fields(line[i+len(plan.RemoteSessionMark):])
	if len(f) != 3 {
		return state.RemoteSession{}, false
	}
	sid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || sid <= 1 || f[2] == "" {
		return state.RemoteSession{}, false
	}
	return state.RemoteSession{Host: host, SID: sid, StartTicks: start, BootID: f[2]}, true
}

// watchRemoteSession copies a remote step's standard error from r to log
// and sends the session the guard reports (once) on the returned channel;
// done closes when r reaches its end (every writer closed it).
func watchRemoteSession(host string, r io.ReadCloser, log io.Writer) (sessions <-chan state.RemoteSession, done <-chan struct{}) {
	ch, fin := make(chan state.RemoteSession, 1), make(chan struct{})
	go func() {
		defer close(fin)
		defer r.Close()
		br := bufio.NewReader(r)
		sent := false
		for {
			line, err := br.ReadString('\n')
			if !sent {
				if s, ok := parseRemoteSession(host, line); ok {
					ch <- s
					sent = true
				}
			}
			_, _ = io.WriteString(log, line)
			if err != nil {
				return
			}
		}
	}()
	return ch, fin
}

// remoteKill ends a recorded session on the database host: only on the
// same boot, and only when its leader is gone or is still the recorded
// process (same start time: a reused pid is another's). It prints
// "killed N" (the session's live processes), or why it did nothing.
const remoteKill = `p=$1 t=$2 b=$3
read -r now </proc/sys/kernel/random/boot_id || { echo "no /proc"; exit 1; }
[ "$now" = "$b" ] || { echo "rebooted"; exit 0; }
if read -r l 2>/dev/null </proc/"$p"/stat; then
	l=${l##*\) }; set -- $l
	[ "${20}" = "$t" ] || { echo "reused"; exit 0; }
fi
n=0
for f in /proc/[0-9]*/stat; do
	read -r l 2>/dev/null <"$f" || continue
	l=${l##*\) }; set -- $l
	[ "$4" = "$p" ] && [ "$1" != Z ] && n=$((n+1))
done
if [ "$n" -gt 0 ]; then kill -KILL -"$p" || exit 1; fi
echo "killed $n"`

// endRemote ends the recorded remote session of an interrupted or failed
// step through the host's transport, before resume starts anything, and
// says what it did through printf. An error leaves the session recorded:
// resume stops, since redoing the step would run a second command beside
// the first.
func endRemote(ctx context.Context, p *plan.Plan, it plan.Item, s *state.RemoteSession, printf func(string, ...any)) error {
	argv, err := p.RemoteShellArgv(s.Host, []string{"/bin/sh", "-c", remoteKill, "walab-remote-kill",
		strconv.Itoa(s.SID), strconv.FormatUint(s.StartTicks, 10), s.BootID})
	var out []byte
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stderr = os.Stderr
		out, err = cmd.Output()
	}
	res := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(res, "killed ") && res != "rebooted" && res != "reused" {
		return fmt.Errorf("step %s was interrupted; its command may still run on host %s (session %d): ending it failed (%v %s): "+
			"end it there (kill -KILL -- -%d) and resume again", it.ID, s.Host, s.SID, err, res, s.SID)
	}
	switch n := strings.TrimPrefix(res, "killed "); {
	case res == "rebooted" || res == "reused":
		printf("[resume] %s: its remote session %d on host %s is gone (%s)", it.ID, s.SID, s.Host, res)
	case n != "0":
		printf("[resume] %s: killed the remote session %d on host %s (%s process(es)) that the interrupted step left running", it.ID, s.SID, s.Host, n)
	}
	return nil
}

// recordRemote records (or, nil, forgets) a step's remote session in the
// journal j, saved in the experiment directory out.
func recordRemote(out string, j *state.State, it plan.Item, s *state.RemoteSession) error {
	st := j.Steps[it.ID]
	if st == nil || st.Remote == s || st.Remote == nil && s == nil {
		return nil
	}
	st.Remote = s
	if err := state.Save(out, j); err != nil {
		return fmt.Errorf("step %s: recording its remote session: %w", it.ID, err)
	}
	return nil
}

// remoteOutputEnd waits (at most 5 s) until a remote step's standard
// error was copied to its log, so the log's exit line comes last.
func remoteOutputEnd(done <-chan struct{}) {
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

// settleRemote keeps a remote step's session recorded when ssh failed
// (exit 255: the connection broke, the session may run on; its report may
// still be unread) and forgets it otherwise: the guard ended it.
func settleRemote(out string, j *state.State, it plan.Item, sessions <-chan state.RemoteSession, exit int) {
	if exit != 255 {
		_ = recordRemote(out, j, it, nil)
		return
	}
	select {
	case s := <-sessions:
		_ = recordRemote(out, j, it, &s)
	default:
	}
}
