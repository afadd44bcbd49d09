// Package e2e: how the two-host transport is tested (moved from docs/two-hosts.md).
//
// # How it is tested
//
// `test/chaos/remote_test.go` starts Debian's `/usr/sbin/sshd -D` with its own
// configuration on a loopback port (`testenv.StartSSHD`: an ed25519 host key and
// client key made by `ssh-keygen` for the test, `known_hosts` filled in). Under
// `CI=true` a missing openssh-server fails the test. It runs walab through
// `ssh … root@127.0.0.1`:
//
//   - `TestRemoteStepDiesWithRunner` kills the runner with SIGKILL in the middle
//     of a remote step, then times a remote step out, and in both cases asserts
//     that the remote `sleep` is gone.
//   - `TestResumeKillsRemoteSession` freezes the remote guard with SIGSTOP, kills
//     the runner and its ssh with SIGKILL, checks that the remote `sleep` runs on,
//     and asserts that `walab experiment resume` kills it before anything else.
//   - `TestRemoteQuotingThroughWrapper` uses `timeout 60 ssh …` and asserts that
//     `cd DIR && touch ./x` creates DIR/x, and that the dry-run and the step log
//     show the remote line.
//
// A root login that runs a heavy `.bashrc` takes 3–4 s here, so each remote
// step costs that.
package e2e
