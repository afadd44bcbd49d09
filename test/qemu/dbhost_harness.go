//go:build linux

package qemu

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/release"
	"github.com/walab/walab/internal/testenv"
)

// The database host guest as a test harness: test/qemu's TestQEMUDBHost
// and the seed000-nvme rehearsal (e2e) boot it.

// DBHostDrive is the database host's drive: one controller in an FDP
// subsystem (reclaim units of 16 MiB, one reclaim group, 4 handles) with
// two 1 GiB namespaces, namespace 1 on reclaim unit handle 1 and
// namespace 2 on handle 2. QEMU logs an event each time a namespace's
// writes fill a reclaim unit and keeps the latest 63: at 16 MiB a unit
// they span a GiB of writes, several restores of the rehearsal's datadir.
var DBHostDrive = Controller{Serial: "walabdb01", FDP: &FDP{RUSize: 16 << 20, Groups: 1, Handles: 4},
	Namespaces: []Namespace{{DiskMiB: 1024, Handles: "1"}, {DiskMiB: 1024, Handles: "2"}}}

const DBHostName = "walab-dbhost"

// DBHostExporterConfig is the exporter on the database host: the real
// drive (no sim section), both namespaces' data directories, mariadbd.
const DBHostExporterConfig = `filesystem:
  paths: [/data, /data2]
host:
  data_dirs: [/data, /data2]
process:
  names: [mariadbd]
irq:
  interfaces: [eth0]
innodb:
  targets:
    - name: mysql-1
      dsn: "` + DBHostMySQLUser + `:` + DBHostMySQLPassword + `@tcp(127.0.0.1:3306)/"
    - name: mysql-2
      dsn: "` + DBHostMySQLUser + `:` + DBHostMySQLPassword + `@tcp(127.0.0.1:3307)/"
`

// The database user the exporter reads InnoDB and the settings as
// (docs/innodb.md's grants); the rehearsal's backup carries it. The
// targets are named as the plan's, so compare pairs their settings.
const (
	DBHostMySQLUser     = "walab"
	DBHostMySQLPassword = "walab-rehearsal"
)

// DBHostMySQLGrants make that user on a server the backup is taken from.
var DBHostMySQLGrants = []string{
	"CREATE USER IF NOT EXISTS '" + DBHostMySQLUser + "'@'127.0.0.1' IDENTIFIED BY '" + DBHostMySQLPassword + "' WITH MAX_USER_CONNECTIONS 3",
	"GRANT PROCESS ON *.* TO '" + DBHostMySQLUser + "'@'127.0.0.1'",
}

// dbHost is a running database host guest and how the client reaches it.
type DBHostGuest struct {
	Guest                                 *Guest
	SSHPort, MySQL1, MySQL2, ExporterPort int
	Key, KnownHosts                       string // the run's client key, the guest's host key line
	// Bak is what the guest mounts at /bak: a directory shared over 9p
	// (writable), or an ext4 image (BackupImage) attached read-only as a
	// virtio disk, whose bak/ directory is bound there: reading a 279 MB
	// datadir over 9p took minutes under TCG.
	Bak string
}

// ssh is the command prefix that runs a command on the guest.
func (h *DBHostGuest) SSH() string {
	return fmt.Sprintf("ssh -o BatchMode=yes -o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes -o ConnectTimeout=20 -i %s -p %d root@127.0.0.1", h.KnownHosts, h.Key, h.SSHPort)
}

func (h *DBHostGuest) ExporterURL() string { return fmt.Sprintf("http://127.0.0.1:%d", h.ExporterPort) }

// run runs a shell command on the guest over ssh.
func (h *DBHostGuest) Run(t testing.TB, cmd string) string {
	t.Helper()
	argv := append(strings.Fields(h.SSH()), cmd)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	require.NoError(t, err, "on the guest: %s: %s", cmd, out)
	return string(out)
}

// StartDBHost boots the database host and waits for sshd and the exporter.
func StartDBHost(t testing.TB, exporter, bak string) *DBHostGuest {
	t.Helper()
	return startDBHost(t, bak, DBHost{Exporter: exporter, ExporterConfig: DBHostExporterConfig}, dbHostBootTimeout)
}

// StartDBHostDrive boots the database host on drive instead of
// DBHostDrive, its exporter started with config.
func StartDBHostDrive(t testing.TB, exporter, config, bak string, drive Controller) *DBHostGuest {
	t.Helper()
	return startDBHost(t, bak, DBHost{Exporter: exporter, ExporterConfig: config, Drive: &drive}, dbHostBootTimeout)
}

// StartDBHostSystemd boots the database host with systemd as its init,
// installs deb (walab-exporter's package) with dpkg, adds the rehearsal's
// sections to /etc/walab/exporter.yml and starts the service with
// systemctl enable --now, as docs/install.md tells an operator.
func StartDBHostSystemd(t testing.TB, deb, bak string) *DBHostGuest {
	t.Helper()
	h := startDBHost(t, bak, DBHost{Systemd: true, Deb: deb}, dbHostSystemdBootTimeout)
	h.installExporter(t, filepath.Base(deb))
	return h
}

func startDBHost(t testing.TB, bak string, d DBHost, boot time.Duration) *DBHostGuest {
	t.Helper()
	qemuBin := RequireQEMU(t)
	k, busybox := requireDBHostInputs(t)
	dir := t.TempDir()
	h := &DBHostGuest{Key: filepath.Join(dir, "id_ed25519"), KnownHosts: filepath.Join(dir, "known_hosts"), Bak: bak}
	h.SSHPort, h.MySQL1, h.MySQL2, h.ExporterPort = testenv.FreePort(t), testenv.FreePort(t), testenv.FreePort(t), testenv.FreePort(t)
	pub, hostKey := h.sshKeys(t, dir)
	d.Hostname, d.AuthorizedKey, d.HostKey = DBHostName, string(pub), hostKey
	drive := DBHostDrive
	if d.Drive != nil {
		drive = *d.Drive
	}
	d.FDPCtl = BuildStatic(t, dir, "fdpctl", "github.com/walab/walab/test/qemu/fdpctl")
	for i := range drive.Namespaces {
		d.EventNamespaces = append(d.EventNamespaces, i+1)
	}
	initrd := writeDBHostInitramfs(t, dir, k, busybox, d)
	cmdline := "quiet no_timer_check"
	if d.Systemd {
		cmdline += " net.ifnames=0" // udev keeps the NIC eth0, as the plan's variables name it
	}
	vm := VM{QEMU: qemuBin, Kernel: k, Initramfs: initrd, Dir: dir, Cmdline: cmdline, MemoryMiB: 2048, SMP: 2,
		Controllers: []Controller{drive},
		Net:         &UserNet{Forwards: []Forward{{h.SSHPort, DBHostSSH}, {h.MySQL1, DBHostMySQL1}, {h.MySQL2, DBHostMySQL2}, {h.ExporterPort, DBHostExporter}}},
		Shares:      []Share{{Tag: "usr", Path: "/usr", ReadOnly: true}}}
	if st, err := os.Stat(bak); err == nil && st.Mode().IsRegular() {
		vm.Disks = []string{bak}
	} else {
		vm.Shares = append(vm.Shares, Share{Tag: "bak", Path: bak})
	}
	var err error
	h.Guest, err = vm.Start(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() {
		h.Guest.Stop()
		if t.Failed() {
			t.Logf("guest console:\n%s", Tail(h.Guest.Console(), 4000))
		}
	})
	h.waitReady(t, boot)
	return h
}

// ExporterDeb is walab-exporter's .deb as make dist builds it from the
// work tree at root, for this machine's architecture, in dir; or the one
// $WALAB_EXPORTER_DEB names (make dist's, built beforehand: the archives
// and .rpm it also builds take minutes on a loaded machine).
func ExporterDeb(t testing.TB, root, dir string) string {
	t.Helper()
	if deb := os.Getenv(ExporterDebEnv); deb != "" {
		return deb
	}
	root, err := filepath.Abs(root)
	require.NoError(t, err)
	s, err := release.ReadSource(context.Background(), root)
	require.NoError(t, err)
	out := filepath.Join(dir, "dist")
	_, err = release.Dist(context.Background(), s, release.Options{Out: out, Arches: []string{runtime.GOARCH}, AllowDirty: true})
	require.NoError(t, err)
	debs, err := filepath.Glob(filepath.Join(out, "walab-exporter_*.deb"))
	require.NoError(t, err)
	require.Len(t, debs, 1)
	return debs[0]
}

// installExporter installs the package the guest holds in /walab, appends
// the rehearsal's sections to the installed exporter.yml (its wa section
// kept), starts the service and waits for its first scrape.
func (h *DBHostGuest) installExporter(t testing.TB, deb string) {
	t.Helper()
	h.Run(t, "set -e; dpkg -i /walab/"+deb+"; cat >> /etc/walab/exporter.yml <<'WALAB_EOF'\n\n# The rehearsal's database host (test/qemu).\n"+
		DBHostExporterConfig+"WALAB_EOF\nsystemctl enable --now walab-exporter")
	deadline := time.Now().Add(dbHostSystemdBootTimeout)
	for {
		resp, err := http.Get(h.ExporterURL() + "/metrics")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("walab-exporter did not answer within %s: %v\n%s", dbHostSystemdBootTimeout, err,
				h.Run(t, "systemctl status walab-exporter; journalctl -b -u walab-exporter --no-pager | tail -50"))
		}
		time.Sleep(2 * time.Second)
	}
}

// requireDBHostInputs finds the kernel and the programs of this machine
// the database host guest runs (missing ones are testenv.Missing).
func requireDBHostInputs(t testing.TB) (Kernel, string) {
	t.Helper()
	k, err := FindKernel("/boot", "/lib/modules")
	if err != nil {
		testenv.Missing(t, "%v", err)
	}
	busybox := "/bin/busybox"
	if b := os.Getenv(BusyboxEnv); b != "" {
		busybox = b
	}
	for _, b := range []string{busybox, "/usr/sbin/sshd", "/usr/sbin/mariadbd", "/usr/bin/numactl", "/usr/bin/ssh", "/usr/bin/ssh-keygen"} {
		if _, err := os.Stat(b); err != nil {
			testenv.Missing(t, "the database host guest runs this machine's %s: %v", b, err)
		}
	}
	return k, busybox
}

// sshKeys makes the run's client key and the guest's host key in dir and
// writes the known_hosts line for the guest's forwarded ssh port. It
// returns the client's public key and the host's private key.
func (h *DBHostGuest) sshKeys(t testing.TB, dir string) (pub, hostKey []byte) {
	t.Helper()
	for _, f := range []string{h.Key, filepath.Join(dir, "host_ed25519")} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "walab-run", "-f", f).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	pub, err := os.ReadFile(h.Key + ".pub")
	require.NoError(t, err)
	hostKey, err = os.ReadFile(filepath.Join(dir, "host_ed25519"))
	require.NoError(t, err)
	hostPub, err := os.ReadFile(filepath.Join(dir, "host_ed25519.pub"))
	require.NoError(t, err)
	keyType, keyData, _ := strings.Cut(strings.TrimSpace(string(hostPub)), " ")
	keyData, _, _ = strings.Cut(keyData, " ")
	require.NoError(t, os.WriteFile(h.KnownHosts, []byte(fmt.Sprintf("[127.0.0.1]:%d %s %s\n", h.SSHPort, keyType, keyData)), 0o600))
	return pub, hostKey
}

// writeDBHostInitramfs builds the database host's initramfs and writes it
// to dir, returning its path.
func writeDBHostInitramfs(t testing.TB, dir string, k Kernel, busybox string, d DBHost) string {
	t.Helper()
	a, mods, err := BuildDBHost(k, busybox, d)
	require.NoError(t, err)
	t.Logf("kernel %s, modules %v", k.Version, mods)
	initrd := filepath.Join(dir, "initramfs.cpio")
	f, err := os.Create(initrd)
	require.NoError(t, err)
	_, err = a.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return initrd
}

// waitReady waits for the guest to say it is ready, then for sshd.
func (h *DBHostGuest) waitReady(t testing.TB, boot time.Duration) {
	t.Helper()
	deadline := time.Now().Add(boot)
	for !strings.Contains(h.Guest.Serial2(), DBHostReady) {
		if done, _ := h.Guest.Exited(); done {
			t.Fatalf("the database host stopped before it was ready:\n%s", h.Guest.Diagnosis())
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database host was not ready within %s:\n%s", boot, h.Guest.Diagnosis())
		}
		time.Sleep(time.Second)
	}
	// sshd forks into the background before READY; give it a few tries.
	var out []byte
	var err error
	for i := 0; i < 30; i++ {
		argv := append(strings.Fields(h.SSH()), "true")
		if out, err = exec.Command(argv[0], argv[1:]...).CombinedOutput(); err == nil {
			return
		}
		time.Sleep(2 * time.Second)
	}
	t.Fatalf("ssh to the database host: %v: %s\n%s", err, out, h.Guest.Diagnosis())
}

// RequireQEMU is qemu-system-x86_64 of at least MinQEMU.
func RequireQEMU(t testing.TB) string {
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

// BuildStatic builds a Go main package without cgo, so it runs in an
// initramfs that has no libc.
func BuildStatic(t testing.TB, dir, name, pkg string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build %s: %s", pkg, out)
	return bin
}

// Tail is the end of s, at most n bytes.
func Tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// dbHostBootTimeout bounds the database host's boot to sshd and the
// exporter; dbHostSystemdBootTimeout systemd's boot under TCG on a loaded
// machine, and again the package's installation to the first scrape.
const (
	dbHostBootTimeout        = 5 * time.Minute
	dbHostSystemdBootTimeout = 10 * time.Minute
)

// ExporterDebEnv names a walab-exporter .deb for ExporterDeb to use.
const ExporterDebEnv = "WALAB_EXPORTER_DEB"

// BusyboxEnv names another static busybox than /bin/busybox (busybox-static).
const BusyboxEnv = "WALAB_QEMU_BUSYBOX"

// BackupImage makes an ext4 image at img holding dir's tree as bak/
// (mke2fs -d, no mount needed), for StartDBHost's bak: the guest binds its
// bak/ at /bak, so the image's lost+found stays out of the backup.
func BackupImage(t testing.TB, dir, img string) {
	t.Helper()
	stage := filepath.Join(t.TempDir(), "root")
	require.NoError(t, os.Mkdir(stage, 0o755))
	out, err := exec.Command("cp", "-a", dir, filepath.Join(stage, "bak")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	du, err := exec.Command("du", "-sm", stage).Output()
	require.NoError(t, err)
	mib, err := strconv.Atoi(strings.Fields(string(du))[0])
	require.NoError(t, err)
	mke2fs := testenv.RequireBinary(t, "mke2fs")
	out, err = exec.Command(mke2fs, "-q", "-t", "ext4", "-d", stage, "-L", "bak", img, fmt.Sprintf("%dM", mib+mib/4+16)).CombinedOutput()
	require.NoError(t, err, "mke2fs -d: %s", out)
}
