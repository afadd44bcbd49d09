//go:build linux

package qemu

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// dbHostFDP is the database host's drive: one controller in an FDP
// subsystem (reclaim units of 4 MiB, one reclaim group, 4 handles) with
// two 1 GiB namespaces, namespace 1 on reclaim unit handle 1 and
// namespace 2 on handle 2.
var dbHostFDP = Controller{Serial: "walabdb01", FDP: &FDP{RUSize: 4 << 20, Groups: 1, Handles: 4},
	Namespaces: []Namespace{{DiskMiB: 1024, Handles: "1"}, {DiskMiB: 1024, Handles: "2"}}}

const dbHostName = "walab-dbhost"

// dbHostExporterConfig is the exporter on the database host: the real
// drive (no sim section), both namespaces' data directories, mariadbd.
const dbHostExporterConfig = `filesystem:
  paths: [/data, /data2]
host:
  data_dirs: [/data, /data2]
process:
  names: [mariadbd]
irq:
  interfaces: [eth0]
`

// dbHost is a running database host guest and how the client reaches it.
type dbHost struct {
	guest                          *Guest
	sshPort, mysql1, mysql2, expPt int
	key, knownHosts                string // the run's client key, the guest's host key line
	bak                            string // the backup directory the guest mounts at /bak
}

// ssh is the command prefix that runs a command on the guest.
func (h *dbHost) ssh() string {
	return fmt.Sprintf("ssh -o BatchMode=yes -o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes -o ConnectTimeout=20 -i %s -p %d root@127.0.0.1", h.knownHosts, h.key, h.sshPort)
}

func (h *dbHost) exporterURL() string { return fmt.Sprintf("http://127.0.0.1:%d", h.expPt) }

// run runs a shell command on the guest over ssh.
func (h *dbHost) run(t *testing.T, cmd string) string {
	t.Helper()
	argv := append(strings.Fields(h.ssh()), cmd)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	require.NoError(t, err, "on the guest: %s: %s", cmd, out)
	return string(out)
}

// startDBHost boots the database host and waits for sshd and the exporter.
func startDBHost(t *testing.T, bak string) *dbHost {
	t.Helper()
	qemuBin := requireQEMU(t)
	k, err := FindKernel("/boot", "/lib/modules")
	if err != nil {
		testenv.Missing(t, "%v", err)
	}
	for _, b := range []string{"/bin/busybox", "/usr/sbin/sshd", "/usr/sbin/mariadbd", "/usr/bin/numactl", "/usr/bin/ssh", "/usr/bin/ssh-keygen"} {
		if _, err := os.Stat(b); err != nil {
			testenv.Missing(t, "the database host guest runs this machine's %s: %v", b, err)
		}
	}
	dir := t.TempDir()
	h := &dbHost{key: filepath.Join(dir, "id_ed25519"), knownHosts: filepath.Join(dir, "known_hosts"), bak: bak}
	for _, f := range []string{h.key, filepath.Join(dir, "host_ed25519")} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "walab-run", "-f", f).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	pub, err := os.ReadFile(h.key + ".pub")
	require.NoError(t, err)
	hostKey, err := os.ReadFile(filepath.Join(dir, "host_ed25519"))
	require.NoError(t, err)
	hostPub, err := os.ReadFile(filepath.Join(dir, "host_ed25519.pub"))
	require.NoError(t, err)
	h.sshPort, h.mysql1, h.mysql2, h.expPt = testenv.FreePort(t), testenv.FreePort(t), testenv.FreePort(t), testenv.FreePort(t)
	keyType, keyData, _ := strings.Cut(strings.TrimSpace(string(hostPub)), " ")
	keyData, _, _ = strings.Cut(keyData, " ")
	require.NoError(t, os.WriteFile(h.knownHosts, []byte(fmt.Sprintf("[127.0.0.1]:%d %s %s\n", h.sshPort, keyType, keyData)), 0o600))

	a, mods, err := BuildDBHost(k, "/bin/busybox", DBHost{Hostname: dbHostName, AuthorizedKey: string(pub), HostKey: hostKey,
		Exporter: buildStatic(t, dir, "exporter", "../../exporter"), ExporterConfig: dbHostExporterConfig})
	require.NoError(t, err)
	t.Logf("kernel %s, modules %v", k.Version, mods)
	initrd := filepath.Join(dir, "initramfs.cpio")
	f, err := os.Create(initrd)
	require.NoError(t, err)
	_, err = a.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	vm := VM{QEMU: qemuBin, Kernel: k, Initramfs: initrd, Dir: dir, Cmdline: "quiet no_timer_check", MemoryMiB: 1536, SMP: 2,
		Controllers: []Controller{dbHostFDP},
		Net:         &UserNet{Forwards: []Forward{{h.sshPort, DBHostSSH}, {h.mysql1, DBHostMySQL1}, {h.mysql2, DBHostMySQL2}, {h.expPt, DBHostExporter}}},
		Shares:      []Share{{Tag: "usr", Path: "/usr", ReadOnly: true}, {Tag: "bak", Path: bak}}}
	h.guest, err = vm.Start(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() {
		h.guest.Stop()
		if t.Failed() {
			t.Logf("guest console:\n%s", tail(h.guest.Console(), 4000))
		}
	})
	deadline := time.Now().Add(bootTimeout)
	for !strings.Contains(h.guest.Serial2(), DBHostReady) {
		if done, err := h.guest.Exited(); done {
			t.Fatalf("the database host stopped before it was ready: %v\n%s", err, tail(h.guest.Console(), 4000))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database host was not ready within %s:\n%s", bootTimeout, tail(h.guest.Console(), 4000))
		}
		time.Sleep(time.Second)
	}
	// sshd forks into the background before READY; give it a few tries.
	var out []byte
	for i := 0; i < 30; i++ {
		argv := append(strings.Fields(h.ssh()), "true")
		if out, err = exec.Command(argv[0], argv[1:]...).CombinedOutput(); err == nil {
			return h
		}
		time.Sleep(2 * time.Second)
	}
	t.Fatalf("ssh to the database host: %v: %s\n%s", err, out, tail(h.guest.Console(), 3000))
	return nil
}

// requireQEMU is qemu-system-x86_64 of at least MinQEMU.
func requireQEMU(t *testing.T) string {
	t.Helper()
	qemuBin := testenv.RequireBinary(t, "qemu-system-x86_64")
	version, err := exec.Command(qemuBin, "--version").Output()
	require.NoError(t, err)
	major, minor, err := ParseVersion(string(version))
	require.NoError(t, err)
	if major < MinQEMU {
		testenv.Missing(t, "QEMU %d.%d at %s: these tests need QEMU >= %d (bookworm-backports; scripts/setup.sh installs it)", major, minor, qemuBin, MinQEMU)
	}
	return qemuBin
}

// TestQEMUDBHost: the database host boots with the host's /usr, answers
// ssh with the run's key under its own hostname, sees the FDP drive's two
// namespaces through the stock nvme driver, runs this machine's mariadbd
// and numactl, and its exporter, reached through the forwarded loopback
// port, reads the controller through the ioctl path with FDP as its NAND
// source.
func TestQEMUDBHost(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM")
	}
	h := startDBHost(t, t.TempDir())
	require.Equal(t, dbHostName+"\n", h.run(t, "hostname"))
	require.Equal(t, "walabdb01\n", h.run(t, "cat /sys/class/nvme/nvme0/serial"))
	require.Equal(t, "nvme0n1\nnvme0n2\n", h.run(t, "ls /sys/class/nvme/nvme0 | grep '^nvme0n'"))
	require.Contains(t, h.run(t, "mariadbd --version"), "MariaDB")
	require.Contains(t, h.run(t, "numactl -C 0 -i 0 cat /proc/self/status | grep Cpus_allowed_list"), "\t0\n")
	resp, err := http.Get(h.exporterURL() + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Regexp(t, `walab_nvme_info\{device="nvme0",[^}]*serial="walabdb01"[^}]*source="fdp"[^}]*\} 1`, string(body))
	require.Contains(t, string(body), `walab_nvme_fdp_enabled{device="nvme0"} 1`)
}
