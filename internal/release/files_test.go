package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreos/go-systemd/v22/unit"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/exporterapp"
	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/wa"
)

// unitOptions reads the packaged unit: section.name -> values.
func unitOptions(t *testing.T) map[string][]string {
	t.Helper()
	b, err := embedded.ReadFile("files/walab-exporter.service")
	require.NoError(t, err)
	return parseUnit(t, b)
}

func parseUnit(t *testing.T, b []byte) map[string][]string {
	t.Helper()
	opts, err := unit.DeserializeOptions(bytes.NewReader(b))
	require.NoError(t, err)
	m := map[string][]string{}
	for _, o := range opts {
		m[o.Section+"."+o.Name] = append(m[o.Section+"."+o.Name], o.Value)
	}
	return m
}

// TestPackagedConfig: /etc/walab/exporter.yml loads as the exporter loads
// it (known sections, strict keys) and keeps the WA state in the unit's
// state directory, the one place the unit lets it write.
func TestPackagedConfig(t *testing.T) {
	b, err := embedded.ReadFile("files/exporter.yml")
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "exporter.yml")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	f, err := exporterapp.LoadConfig(p)
	require.NoError(t, err)
	var c wa.Config
	require.NoError(t, f.Decode("wa", &c))
	require.Equal(t, StateDir+"/wa-state.bin", c.StateFile)
	u := unitOptions(t)
	require.Equal(t, []string{"walab"}, u["Service.StateDirectory"])
	require.Equal(t, []string{StateDir}, u["Service.ReadWritePaths"])
	require.Equal(t, StateDir, filepath.Dir(c.StateFile))
}

// TestUnitSandbox: the unit runs as walab with CAP_SYS_ADMIN and
// CAP_SYSLOG and CAP_SYS_PTRACE as its only capabilities (the ptrace and syslog calls filtered out), the hardening the issue names, and without the settings
// that would stop the exporter reading what it reads (PrivateDevices hides
// /dev/nvme*, ProtectProc=invisible hides mysqld's /proc entries).
func TestUnitSandbox(t *testing.T) {
	u := unitOptions(t)
	for k, v := range map[string]string{
		"Service.User": "walab", "Service.Group": "walab",
		"Service.AmbientCapabilities": "CAP_SYS_ADMIN CAP_SYSLOG CAP_SYS_PTRACE", "Service.CapabilityBoundingSet": "CAP_SYS_ADMIN CAP_SYSLOG CAP_SYS_PTRACE",
		"Service.SystemCallFilter": "~syslog ptrace process_vm_readv process_vm_writev", "Service.InaccessiblePaths": "-/dev/kmsg -/proc/kmsg",
		"Service.NoNewPrivileges": "yes", "Service.ProtectSystem": "strict", "Service.ProtectHome": "yes",
		"Service.PrivateTmp": "yes", "Service.EnvironmentFile": "-/etc/default/walab-exporter",
		"Service.ExecStart":   "/usr/bin/walab-exporter --config.file=/etc/walab/exporter.yml $ARGS",
		"Service.DeviceAllow": "char-nvme r", "Install.WantedBy": "multi-user.target",
	} {
		require.Equal(t, []string{v}, u[k], k)
	}
	// ProtectKernelLogs drops CAP_SYSLOG from the bounding set: its other
	// effects (no syslog(2), no /dev/kmsg) are above.
	for _, k := range []string{"Service.PrivateDevices", "Service.ProtectProc", "Service.DynamicUser", "Service.PrivateUsers", "Service.ProtectKernelLogs"} {
		require.NotContains(t, u, k)
	}
	def, err := embedded.ReadFile("files/walab-exporter.default")
	require.NoError(t, err)
	require.Contains(t, strings.Split(string(def), "\n"), `ARGS=""`)
}

// TestUdevRuleServiceOnly: the controllers' character devices are readable
// by the service's user alone, never by a group. Since Linux 6.2 whoever
// can open /dev/nvmeN without CAP_SYS_ADMIN may send it I/O read commands
// (nvme_cmd_allowed), so a group walab with read access could read the
// namespace's blocks. Before, the rule made them group walab 0640.
func TestUdevRuleServiceOnly(t *testing.T) {
	b, err := embedded.ReadFile("files/60-walab-exporter.rules")
	require.NoError(t, err)
	var rules []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			rules = append(rules, l)
		}
	}
	require.Len(t, rules, 1)
	for _, want := range []string{`SUBSYSTEM=="nvme"`, `KERNEL=="nvme[0-9]*"`, `OWNER="walab"`, `GROUP="root"`, `MODE="0400"`} {
		require.Contains(t, rules[0], want)
	}
	require.NotContains(t, rules[0], `GROUP="walab"`)
}

// TestMaintainerScriptsStopTheService: removing the package stops and
// disables the unit (Debian's prerm, rpm's %preun), so no exporter keeps
// running without its binary; an upgrade restarts a running one on the
// new binary. Each script runs under sh with a systemctl that records its
// arguments, in a mount namespace where /run/systemd/system exists.
// Before, neither package had such a script.
func TestMaintainerScriptsStopTheService(t *testing.T) {
	for _, b := range []string{"unshare", "sh"} {
		testenv.RequireBinary(t, b)
	}
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root, for a mount namespace")
	}
	const unit = "walab-exporter.service"
	for _, tt := range []struct {
		script string
		args   []string
		want   string
	}{
		{"deb-prerm", []string{"remove"}, "deb-systemd-invoke stop " + unit + "\ndeb-systemd-helper disable " + unit},
		{"deb-prerm", []string{"upgrade", "1.0"}, ""},
		{"deb-postinst", []string{"configure", "1.0"}, "deb-systemd-invoke try-restart " + unit},
		{"rpm-preun", []string{"0"}, "--system disable --now " + unit},
		{"rpm-preun", []string{"1"}, ""},
		{"rpm-postun", []string{"1"}, "--system try-restart " + unit},
	} {
		calls := runScript(t, tt.script, tt.args...)
		if tt.want == "" {
			require.NotContains(t, calls, unit, "%s %v", tt.script, tt.args)
			continue
		}
		require.Contains(t, calls, tt.want, "%s %v", tt.script, tt.args)
	}
}

// runScript runs a packaged maintainer script with fake systemctl, udevadm,
// adduser, getent, install and chgrp (each records its arguments) and
// returns the calls that reach systemd (systemctl, deb-systemd-*).
func runScript(t *testing.T, name string, args ...string) string {
	t.Helper()
	b, err := embedded.ReadFile("files/" + name)
	require.NoError(t, err)
	dir := t.TempDir()
	script := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(script, b, 0o755))
	bin := filepath.Join(dir, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	log := filepath.Join(dir, "calls")
	for _, c := range []string{"systemctl", "deb-systemd-invoke", "deb-systemd-helper", "udevadm", "adduser", "getent", "install", "chgrp", "chmod", "dpkg-statoverride"} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, c), []byte("#!/bin/sh\necho \""+c+" $*\" >>"+log+"\n"), 0o755))
	}
	inner := `mount -t tmpfs none /run/systemd && mkdir /run/systemd/system && PATH="$0:/usr/bin:/bin" sh "$@"`
	cmd := exec.Command("unshare", append([]string{"-m", "--propagation", "private", "sh", "-c", inner, bin, script}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %v: %s", name, args, out)
	calls, _ := os.ReadFile(log)
	var sys []string
	for _, l := range strings.Split(string(calls), "\n") {
		if strings.HasPrefix(l, "systemctl ") || strings.HasPrefix(l, "deb-systemd-") {
			sys = append(sys, l)
		}
	}
	return strings.Join(sys, "\n")
}
