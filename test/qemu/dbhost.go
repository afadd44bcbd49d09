package qemu

import (
	"fmt"
	"os"
	"strings"
)

// A database host guest: Debian's kernel with the stock nvme driver, the
// host's own /usr shared read-only over virtio-9p as its userland (mariadbd,
// sshd, mkfs, numactl: Debian's packages as installed here, no image), the
// initramfs as its small writable root (/etc, /run, /var, /root), one
// virtio NIC on QEMU's restricted user-mode network, and walab's exporter
// reading the controller through the ioctl path. The client reaches it only
// through ports QEMU forwards from the host's 127.0.0.1.

// Guest ports the database host serves; the test forwards host ports to them.
const (
	DBHostSSH      = 22
	DBHostMySQL1   = 3306
	DBHostMySQL2   = 3307
	DBHostExporter = 10131
)

// DBHostReady is the line the guest writes to its second serial port when
// sshd and the exporter run.
const DBHostReady = "WALAB-DBHOST-READY"

// DBHostModules are the modules the guest loads: the NVMe driver, 9p over
// virtio for /usr and the backup, the NIC, and the filesystems a reset may
// make; DBHostOptional the soft dependencies modprobe would have added.
var (
	DBHostModules  = []string{"nvme", "9p", "9pnet_virtio", "virtio_net", "virtio_blk", "xfs", "ext4"}
	DBHostOptional = []string{"crct10dif_generic", "crc64_rocksoft_generic", "crc32c_generic", "crc32c_intel"}
)

// DBHost is what the guest's root holds beyond busybox and the modules.
type DBHost struct {
	Hostname      string
	AuthorizedKey string // the run's public key, for root over ssh
	HostKey       []byte // sshd's private ed25519 host key (OpenSSH format)
	Exporter      string // the statically built exporter binary on this machine
	// ExporterConfig is the exporter's configuration file: the real drive
	// (no sim section), the data directories, the mariadbd processes.
	ExporterConfig string
	// FDPCtl, when set, is the statically built test/qemu/fdpctl: /init
	// then enables the FDP event "reclaim unit not fully written" on
	// placement handle 0 of each of EventNamespaces (Set Features 0x1E, the
	// drive's set-up, as `nvme fdp set-events` on a server), so the events
	// log names the reclaim unit handle each namespace's writes go to.
	FDPCtl          string
	EventNamespaces []int
	// Systemd boots systemd as the guest's init instead of the script
	// that starts Exporter, and puts Deb (walab-exporter's package) in
	// /walab for the test to install (dbhost_systemd.go).
	Systemd bool
	Deb     string
	// Drive, when set, is the guest's drive instead of DBHostDrive.
	Drive *Controller
}

// fdpEventsInit is /init's set-up of the drive's FDP events: wait for the
// namespaces, then enable event type 0 on each one's placement handle 0.
func fdpEventsInit(nsids []int) string {
	var b strings.Builder
	for _, n := range nsids {
		fmt.Fprintf(&b, "i=0; while [ ! -e /dev/nvme0n%[1]d ] && [ $i -lt 60 ]; do sleep 1; i=$((i+1)); done\n"+
			"/walab/fdpctl events -dev /dev/nvme0 -nsid %[1]d -ph 0 -types 0 > /dev/console 2>&1 || echo \"walab-guest: FDP events on namespace %[1]d failed\" > /dev/console\n", n)
	}
	return b.String()
}

// dbHostInit is the guest's /init: busybox until the host's /usr is
// mounted, then Debian's own programs through the root's /bin, /sbin and
// /lib64 symlinks into /usr (bookworm's merged /usr); /lib holds the
// modules until they are loaded, then becomes the link to usr/lib.
const dbHostInit = `#!/bb/busybox sh
/bb/busybox mount -t proc proc /proc
/bb/busybox mount -t sysfs sysfs /sys
/bb/busybox mount -t devtmpfs devtmpfs /dev
/bb/busybox echo "walab-guest: init" > /dev/console
while read -r m; do /bb/busybox insmod "$m" || /bb/busybox echo "insmod $m failed" > /dev/console; done < /etc/modules.order
/bb/busybox mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose usr /usr || { /bb/busybox echo "walab-guest: no /usr" > /dev/console; /bb/busybox poweroff -f; }
/bb/busybox rm -rf /lib && /bb/busybox ln -s usr/lib /lib
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin HOME=/root
mkdir -p /dev/pts /dev/shm /run/sshd /var/log /var/tmp /tmp /bak /data /data2
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
@SERVICES@
/walab/exporter --config.file=/etc/walab/exporter.yml --web.listen-address=:@EXPORTER@ --nvme.cache-max-age=5s > /var/log/exporter.log 2>&1 &
echo "@READY@" > /dev/ttyS1
exec /bb/busybox sh -c 'while :; do /bb/busybox sleep 3600; done'
`

// dbHostServices is what either init sets up once /usr is there: the
// backup at /bak, the network, sshd and the drive's FDP events.
const dbHostServices = `if [ -b /dev/vda ]; then mkdir -p /mnt/bakfs && mount -o ro /dev/vda /mnt/bakfs && mount --bind /mnt/bakfs/bak /bak; else mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 bak /bak; fi
hostname @HOSTNAME@
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
/usr/sbin/sshd -f /etc/ssh/sshd_config -E /var/log/sshd.log
@FDPEVENTS@`

const dbHostSSHD = `Port 22
HostKey /etc/ssh/ssh_host_ed25519_key
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile /etc/ssh/authorized_keys
UsePAM no
StrictModes no
PidFile /run/sshd.pid
`

// BuildDBHost is the database host's initramfs: busybox, the modules of
// the kernel, /etc for sshd and mariadbd, the exporter and /init.
func BuildDBHost(k Kernel, busybox string, h DBHost) (*Archive, []string, error) {
	if strings.ContainsAny(h.Hostname, " '\"$\n") || h.Hostname == "" {
		return nil, nil, fmt.Errorf("hostname %q: a plain name", h.Hostname)
	}
	events := ""
	if h.FDPCtl != "" {
		events = fdpEventsInit(h.EventNamespaces)
	}
	r := strings.NewReplacer("@HOSTNAME@", h.Hostname, "@EXPORTER@", fmt.Sprint(DBHostExporter), "@READY@", DBHostReady, "@FDPEVENTS@", events)
	services := r.Replace(dbHostServices)
	init := strings.NewReplacer("@SERVICES@", services).Replace(r.Replace(dbHostInit))
	a := NewArchive()
	if err := AddStaticBinary(a, "bb/busybox", busybox); err != nil {
		return nil, nil, err
	}
	for _, d := range []string{"proc", "sys", "dev", "usr", "etc", "etc/ssh", "root", "run", "var", "tmp", "walab"} {
		a.Dir(d)
	}
	for _, l := range []string{"bin", "sbin", "lib64"} {
		a.Symlink(l, "usr/"+l)
	}
	a.CharDev("dev/console", 0o600, 5, 1)
	modules := DBHostModules
	if h.Systemd {
		// The package makes /etc/walab: a file there before it would be
		// a conffile dpkg asks about.
		a.File("init", 0o755, []byte(dbHostSystemdInit))
		if err := addSystemd(a, h.Deb, services, r.Replace(dbHostGuestSetup)); err != nil {
			return nil, nil, err
		}
		modules = append(append([]string(nil), DBHostModules...), "overlay")
	} else {
		a.File("init", 0o755, []byte(init))
		if err := AddStaticBinary(a, "walab/exporter", h.Exporter); err != nil {
			return nil, nil, err
		}
		a.Dir("etc/walab")
		a.File("etc/walab/exporter.yml", 0o644, []byte(h.ExporterConfig))
	}
	if h.FDPCtl != "" {
		if err := AddStaticBinary(a, "walab/fdpctl", h.FDPCtl); err != nil {
			return nil, nil, err
		}
	}
	cache, err := os.ReadFile("/etc/ld.so.cache")
	if err != nil {
		return nil, nil, fmt.Errorf("the host's dynamic linker cache, which the guest's programs from /usr need: %w", err)
	}
	for _, f := range []struct {
		name string
		mode uint32
		data string
	}{
		{"etc/ld.so.cache", 0o644, string(cache)},
		{"etc/passwd", 0o644, "root:x:0:0:root:/root:/bin/sh\nsshd:x:100:65534::/run/sshd:/usr/sbin/nologin\nmysql:x:101:101::/nonexistent:/bin/false\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n"},
		{"etc/group", 0o644, "root:x:0:\nmysql:x:101:\nnogroup:x:65534:\n"},
		{"etc/shadow", 0o600, "root:*:20000:0:99999:7:::\nsshd:*:20000:0:99999:7:::\n"},
		{"etc/nsswitch.conf", 0o644, "passwd: files\ngroup: files\nshadow: files\nhosts: files\n"},
		{"etc/hosts", 0o644, "127.0.0.1 localhost " + h.Hostname + "\n"},
		{"etc/hostname", 0o644, h.Hostname + "\n"},
		{"etc/ssh/sshd_config", 0o644, dbHostSSHD},
		{"etc/ssh/ssh_host_ed25519_key", 0o600, string(h.HostKey)},
		{"etc/ssh/authorized_keys", 0o644, h.AuthorizedKey},
	} {
		a.File(f.name, f.mode, []byte(f.data))
	}
	mods, err := AddModules(a, k, modules, DBHostOptional)
	return a, mods, err
}
