package release

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreos/go-systemd/v22/unit"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/exporterapp"
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
// CAP_SYS_PTRACE as its only capabilities (the ptrace calls filtered out), the hardening the issue names, and without the settings
// that would stop the exporter reading what it reads (PrivateDevices hides
// /dev/nvme*, ProtectProc=invisible hides mysqld's /proc entries).
func TestUnitSandbox(t *testing.T) {
	u := unitOptions(t)
	for k, v := range map[string]string{
		"Service.User": "walab", "Service.Group": "walab",
		"Service.AmbientCapabilities": "CAP_SYS_ADMIN CAP_SYS_PTRACE", "Service.CapabilityBoundingSet": "CAP_SYS_ADMIN CAP_SYS_PTRACE",
		"Service.SystemCallFilter": "~ptrace process_vm_readv process_vm_writev",
		"Service.NoNewPrivileges":  "yes", "Service.ProtectSystem": "strict", "Service.ProtectHome": "yes",
		"Service.PrivateTmp": "yes", "Service.EnvironmentFile": "-/etc/default/walab-exporter",
		"Service.ExecStart":   "/usr/bin/walab-exporter --config.file=/etc/walab/exporter.yml $ARGS",
		"Service.DeviceAllow": "char-nvme r", "Install.WantedBy": "multi-user.target",
	} {
		require.Equal(t, []string{v}, u[k], k)
	}
	for _, k := range []string{"Service.PrivateDevices", "Service.ProtectProc", "Service.DynamicUser", "Service.PrivateUsers"} {
		require.NotContains(t, u, k)
	}
	def, err := embedded.ReadFile("files/walab-exporter.default")
	require.NoError(t, err)
	require.Contains(t, strings.Split(string(def), "\n"), `ARGS=""`)
}
