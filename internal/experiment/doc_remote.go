// Package experiment: how a remote command dies with its step (moved from docs/two-hosts.md).
//
// # A remote command dies with its step
//
// ssh gives a remote command no signal when the connection ends, since it has no
// pty. walab therefore runs the command on the database host under a small guard,
// in the line it gives the remote shell. `/bin/sh` there starts the command in a
// session of its own (`setsid`, util-linux) and watches its own standard input.
// walab holds the write end of ssh's standard input for as long as the step runs
// and never writes to it. When the runner dies (`kill -9` too), the step times out
// or is interrupted, that input ends, the channel closes, and the guard kills the
// command's whole session. The command's standard input is /dev/null. The
// database host needs `/bin/sh` and `setsid`.
//
// A network that drops without closing the connection is noticed only when sshd
// sees the connection dead. Set `ClientAliveInterval` on the database host if
// that matters.
//
// When the guard cannot end the command itself (it was stopped or killed, or the
// connection ended in a way it did not see), resume does. The guard writes one
// line to its standard error as the command starts: `walab-remote-session`, the
// command's session id, its leader's start time (`/proc/PID/stat`) and the host's
// boot id. The runner records them in the step's state (`remote_session`) and
// forgets them when the step ends normally. `walab experiment resume` first runs a
// short `/bin/sh` script on the host through the same prefix. It kills the
// session's processes when the boot id matches and the leader is gone or has the
// recorded start time (a reused pid is left alone), and prints
// `[resume] STEP: killed the remote session N on host db`. Only then does resume
// redo or skip anything. If the host cannot be reached, resume stops and names
// the session to kill by hand. `test/chaos: TestResumeKillsRemoteSession` runs
// this against a real sshd: the guard is frozen with SIGSTOP, the runner and its
// ssh are killed with SIGKILL, the remote `sleep` runs on, and resume kills it.
package experiment
