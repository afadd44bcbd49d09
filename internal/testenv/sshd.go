package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/walab/walab/internal/service"
)

// SSHD is a private OpenSSH server of the test's own on a loopback port,
// with a host key and a client key made for the test. It logs in the user
// the test runs as, with the key only.
type SSHD struct {
	Port       int
	Key        string // the client's private key
	KnownHosts string // a known_hosts file that holds the server's host key
	User       string
	dir        string
}

// StartSSHD starts /usr/sbin/sshd -D with a configuration of its own under
// a temporary directory; it is stopped when the test ends. It needs
// Debian's openssh-server and openssh-client (scripts/apt-packages.txt):
// without them the test skips, and under CI=true it fails.
func StartSSHD(t testing.TB) *SSHD {
	t.Helper()
	skipShort(t, "sshd")
	sshd := "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		Missing(t, "%s: install openssh-server", sshd)
	}
	keygen := RequireBinary(t, "ssh-keygen")
	RequireBinary(t, "ssh")
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &SSHD{Key: filepath.Join(dir, "client_key"), KnownHosts: filepath.Join(dir, "known_hosts"), User: u.Username, dir: dir}
	for _, k := range []string{"host_key", "client_key"} {
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(s.Key + ".pub")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600))
	hostPub, err := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	must(t, err)
	// sshd refuses to start without its privilege separation directory.
	must(t, os.MkdirAll("/run/sshd", 0o755))
	s.Port = FreePort(t)
	f := strings.Fields(string(hostPub))
	must(t, os.WriteFile(s.KnownHosts, fmt.Appendf(nil, "[127.0.0.1]:%d %s %s\n", s.Port, f[0], f[1]), 0o600))
	conf := filepath.Join(dir, "sshd_config")
	must(t, os.WriteFile(conf, fmt.Appendf(nil, `ListenAddress 127.0.0.1:%d
HostKey %s
AuthorizedKeysFile %s
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
LogLevel ERROR
`, s.Port, filepath.Join(dir, "host_key"), filepath.Join(dir, "authorized_keys")), 0o600))
	cmd := exec.Command(sshd, "-D", "-e", "-f", conf)
	cmd.Stderr = &service.Buffer{}
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.Port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen on 127.0.0.1:%d: %s", s.Port, cmd.Stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

// Prefix is the ssh command prefix that reaches the server without a
// prompt: what a plan's hosts.db.exec holds.
func (s *SSHD) Prefix() string {
	return fmt.Sprintf("ssh -o BatchMode=yes -o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes -i %s -p %d %s@127.0.0.1",
		s.KnownHosts, s.Key, s.Port, s.User)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
