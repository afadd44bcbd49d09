//go:build linux

package qemu

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQEMUDBHostSystemd: the database host boots systemd as its init,
// walab-exporter's .deb (make dist's) installs with dpkg and starts with
// systemctl enable --now: systemd runs it as walab with the unit's
// capabilities in its sandbox, the package's udev rule gives group walab
// the controller, systemd's state directory holds the WA state, and the
// exporter reads the drive through the ioctl path.
func TestQEMUDBHostSystemd(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM")
	}
	h := StartDBHostSystemd(t, ExporterDeb(t, "../..", t.TempDir()), t.TempDir())
	require.Equal(t, "active\n", h.Run(t, "systemctl is-active walab-exporter"))
	require.Equal(t, "enabled\n", h.Run(t, "systemctl is-enabled walab-exporter"))
	pid := strings.TrimSpace(h.Run(t, "systemctl show -P MainPID walab-exporter"))
	status := h.Run(t, "cat /proc/"+pid+"/status")
	require.Regexp(t, `(?m)^CapEff:\s+0000000400280000$`, status, "CAP_SYS_ADMIN, CAP_SYS_PTRACE and CAP_SYSLOG")
	require.Regexp(t, `(?m)^NoNewPrivs:\s+1$`, status)
	require.Regexp(t, `(?m)^Seccomp:\s+2$`, status, "SystemCallFilter")
	require.Equal(t, "walab\n", h.Run(t, "ps -o user= -p "+pid))
	if perm := h.Run(t, "stat -c '%A %U %G' /dev/nvme0"); perm != "cr-------- walab root\n" {
		t.Fatalf("the package's udev rule did not take: /dev/nvme0 is %s\n%s", perm, h.Run(t,
			"ls -l /usr/lib/udev/rules.d/60-walab-exporter.rules; getent group walab; udevadm info /dev/nvme0; "+
				"udevadm test-builtin --help >/dev/null; journalctl -b -u systemd-udevd --no-pager | tail -20; true"))
	}
	require.Equal(t, "drwxr-x--- walab walab\n", h.Run(t, "stat -c '%A %U %G' /var/lib/walab"))
	// mountinfo's fifth field is the mount point, the sixth its options.
	var usr []string
	for _, l := range strings.Split(h.Run(t, "grep ' /usr ' /proc/"+pid+"/mountinfo"), "\n") {
		if f := strings.Fields(l); len(f) > 5 && f[4] == "/usr" {
			usr = append(usr, f[5])
		}
	}
	require.NotEmpty(t, usr, "/usr in the service's mountinfo")
	require.Regexp(t, `^ro(,|$)`, usr[len(usr)-1], "ProtectSystem=strict: /usr read-only for the service (the last mount on /usr is the one it sees)")
	resp, err := http.Get(h.ExporterURL() + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Regexp(t, `walab_nvme_info\{device="nvme0",[^}]*serial="walabdb01"[^}]*source="fdp"[^}]*\} 1`, string(body))
	require.Contains(t, string(body), `walab_nvme_capacity_bytes{device="nvme0"} 2.147483648e+09`)
}

// TestInstalledOnly: a package left unpacked by an upgrade in progress is
// not in the guest's dpkg status.
func TestInstalledOnly(t *testing.T) {
	in := "Package: a\nStatus: install ok installed\nVersion: 1\n\n" +
		"Package: b\nStatus: install ok half-configured\nVersion: 2\n\n" +
		"Package: c\nStatus: install ok installed\nVersion: 3\n"
	require.Equal(t, "Package: a\nStatus: install ok installed\nVersion: 1\n\nPackage: c\nStatus: install ok installed\nVersion: 3\n", string(installedOnly([]byte(in))))
}
