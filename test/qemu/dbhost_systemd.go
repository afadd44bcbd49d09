package qemu

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The database host with systemd as its init, for the packaged exporter:
// the test installs walab-exporter's .deb with dpkg, writes
// /etc/walab/exporter.yml and starts it with systemctl, as an operator
// does (docs/install.md). systemd then applies the unit's sandbox, udev
// the package's rule, and systemd makes the state directory.
//
// /usr is the host's, shared read-only over 9p, under an overlay on a
// tmpfs so that dpkg can install into it; the root is the initramfs.

// dbHostSystemdInit is /init: busybox mounts /usr as an overlay and hands
// PID 1 to systemd.
const dbHostSystemdInit = `#!/bb/busybox sh
/bb/busybox mount -t proc proc /proc
/bb/busybox mount -t sysfs sysfs /sys
/bb/busybox mount -t devtmpfs devtmpfs /dev
/bb/busybox echo "walab-guest: init (systemd)" > /dev/console
while read -r m; do /bb/busybox insmod "$m" || /bb/busybox echo "insmod $m failed" > /dev/console; done < /etc/modules.order
/bb/busybox mkdir -p /.usr-host /.usr-rw
/bb/busybox mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose usr /.usr-host || { /bb/busybox echo "walab-guest: no /usr" > /dev/console; /bb/busybox poweroff -f; }
/bb/busybox mount -t tmpfs -o mode=0755 tmpfs /.usr-rw && /bb/busybox mkdir -p /.usr-rw/upper /.usr-rw/work
/bb/busybox mount -t overlay -o lowerdir=/.usr-host,upperdir=/.usr-rw/upper,workdir=/.usr-rw/work overlay /usr || { /bb/busybox echo "walab-guest: no overlay /usr" > /dev/console; /bb/busybox poweroff -f; }
/bb/busybox rm -rf /lib && /bb/busybox ln -s usr/lib /lib
exec /usr/lib/systemd/systemd
`

// dbHostGuestSetup is the guest's own set-up, a oneshot service before
// multi-user.target: the network, the backup, the drive's FDP events,
// sshd, then the ready line.
const dbHostGuestSetup = `#!/bin/sh
mkdir -p /run/sshd /var/log /var/tmp /bak /data /data2
@SERVICES@
echo "@READY@" > /dev/ttyS1
`

const dbHostGuestUnit = `[Unit]
Description=walab rehearsal guest: network, backup, FDP events, sshd
After=systemd-udev-trigger.service systemd-udevd.service local-fs.target
Wants=systemd-udev-trigger.service
Before=multi-user.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/walab/guest-setup
StandardOutput=journal+console
StandardError=journal+console
`

// dbHostMasked are the units a minimal server without logins, D-Bus or
// first-boot set-up does not start: each costs seconds under TCG, and a
// getty would take the serial console.
var dbHostMasked = []string{
	"getty.target", "getty-static.service", "serial-getty@.service", "getty@.service", "console-getty.service",
	"systemd-logind.service", "dbus.service", "dbus.socket", "systemd-firstboot.service", "systemd-repart.service",
	"systemd-binfmt.service", "proc-sys-fs-binfmt_misc.automount", "sys-kernel-config.mount", "sys-fs-fuse-connections.mount",
	"systemd-pcrphase.service", "systemd-pcrphase-sysinit.service", "systemd-update-utmp.service", "systemd-update-utmp-runlevel.service",
	"systemd-ask-password-wall.path", "systemd-ask-password-console.path", "systemd-user-sessions.service",
	"systemd-machine-id-commit.service", "systemd-journal-flush.service", "systemd-tmpfiles-clean.timer", "systemd-sysusers.service",
	"systemd-hwdb-update.service", "ldconfig.service", "systemd-update-done.service", "systemd-modules-load.service",
	"kmod-static-nodes.service", "systemd-random-seed.service", "systemd-remount-fs.service", "systemd-timesyncd.service",
	"apt-daily.timer", "apt-daily-upgrade.timer", "man-db.timer", "e2scrub_all.timer", "fstrim.timer", "dpkg-db-backup.timer",
}

// addSystemd adds systemd's configuration, the guest's set-up service,
// dpkg's database (this machine's, whose /usr the guest runs) and the
// .deb to install.
func addSystemd(a *Archive, deb, services, setup string) error {
	a.File("walab/guest-setup", 0o755, []byte(strings.Replace(setup, "@SERVICES@", services, 1)))
	for _, d := range []string{"etc/systemd", "etc/systemd/system", "etc/systemd/system/multi-user.target.wants",
		"var/lib", "var/lib/dpkg", "var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "var/log", "mnt"} {
		a.Dir(d)
	}
	a.File("etc/systemd/system/walab-guest.service", 0o644, []byte(dbHostGuestUnit))
	a.Symlink("etc/systemd/system/multi-user.target.wants/walab-guest.service", "/etc/systemd/system/walab-guest.service")
	a.Symlink("etc/systemd/system/default.target", "/usr/lib/systemd/system/multi-user.target")
	for _, u := range dbHostMasked {
		a.Symlink("etc/systemd/system/"+u, "/dev/null")
	}
	a.File("etc/machine-id", 0o444, []byte("5a1ab0000000000000000000000d8b01\n"))
	a.File("etc/os-release", 0o644, []byte("PRETTY_NAME=\"walab rehearsal guest\"\nID=debian\n"))
	a.File("var/lib/dpkg/available", 0o644, nil)
	for _, f := range []struct{ from, to string }{
		{"/var/lib/dpkg/status", "var/lib/dpkg/status"}, {"/etc/login.defs", "etc/login.defs"}, {"/etc/adduser.conf", "etc/adduser.conf"},
	} {
		b, err := os.ReadFile(f.from)
		if err != nil {
			return fmt.Errorf("the guest's dpkg and adduser need this machine's %s: %w", f.from, err)
		}
		if f.to == "var/lib/dpkg/status" {
			b = installedOnly(b)
		}
		a.File(f.to, 0o644, b)
	}
	// adduser runs chfn, which asks PAM: this machine's PAM configuration
	// for this machine's /usr (without it, "chfn: PAM: Critical error" and
	// the postinst failed).
	a.Dir("etc/pam.d")
	if err := copyGlob(a, "/etc/pam.d/*", "etc/pam.d"); err != nil {
		return fmt.Errorf("the guest's adduser needs this machine's PAM configuration: %w", err)
	}
	if err := copyGlob(a, "/var/lib/dpkg/info/*.list", "var/lib/dpkg/info"); err != nil {
		return err
	}
	b, err := os.ReadFile(deb)
	if err != nil {
		return fmt.Errorf("the package to install: %w", err)
	}
	a.File("walab/"+filepath.Base(deb), 0o644, b)
	return nil
}

// installedOnly keeps the packages of a dpkg status file that are
// installed and configured: this machine's apt may be in the middle of
// an upgrade when a test boots the guest, and a package it left unpacked
// or half-configured made the guest's dpkg -i configure it too and leave
// walab-exporter half-configured, without its conffiles.
func installedOnly(status []byte) []byte {
	var out []byte
	for _, st := range strings.SplitAfter(string(status), "\n\n") {
		if strings.Contains(st, "\nStatus: install ok installed\n") {
			out = append(out, st...)
		}
	}
	return out
}

// copyGlob copies this machine's files matching pattern into the
// archive's directory dir.
func copyGlob(a *Archive, pattern, dir string) error {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		a.File(dir+"/"+filepath.Base(f), 0o644, b)
	}
	return nil
}
