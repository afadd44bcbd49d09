package fleet_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

var sysfsFixture = filepath.Join("..", "sysfs", "testdata", "sys")

func TestOpenFromSysfs(t *testing.T) {
	dev := t.TempDir()
	// nvme0 is a regular file: open works, every ioctl fails (ENOTTY), like a
	// node the exporter may open but not use. nvme2 and nvme10 do not exist.
	require.NoError(t, os.WriteFile(filepath.Join(dev, "nvme0"), nil, 0o600))
	fl, err := fleet.Open(fleet.Options{SysFS: sysfsFixture, DevFS: dev})
	require.NoError(t, err)
	defer fl.Close()
	require.Len(t, fl.Controllers, 3)

	c0 := fl.Controllers[0]
	require.Equal(t, "nvme0", c0.Name)
	require.Equal(t, "SAMPLE NVME 3.84TB", c0.Model)
	require.Equal(t, "0000:3b:00.0", c0.PCIAddress)
	require.Equal(t, 1, c0.NUMANode)
	require.Equal(t, []uint32{1, 2}, c0.NSIDs())
	require.NotNil(t, c0.Device)
	require.NotNil(t, c0.Poller)
	require.NoError(t, c0.OpenErr)

	for _, c := range fl.Controllers[1:] {
		require.Nil(t, c.Device, c.Name)
		require.Nil(t, c.Poller, c.Name)
		require.ErrorContains(t, c.OpenErr, "open "+filepath.Join(dev, c.Name))
	}

	// Scraping: every controller is down, identity comes from sysfs.
	set, err := collector.New(collector.Env{Config: config.Empty(), Fleet: fl}, "nvme")
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	reg.MustRegister(set)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var b strings.Builder
	for _, mf := range mfs {
		_, err := expfmt.MetricFamilyToText(&b, mf)
		require.NoError(t, err)
	}
	body := b.String()
	require.Contains(t, body, `walab_nvme_info{device="nvme10",firmware="3.10",model="HWE52P434T0L005N",serial="SER10",simulated="false",source="unknown",unit_confirmed="true"} 1`)
	require.Contains(t, body, `walab_nvme_up{device="nvme0"} 0`)
	require.Contains(t, body, `walab_nvme_up{device="nvme2"} 0`)
	require.Contains(t, body, `walab_nvme_admin_command_errors_total{device="nvme0",opcode="identify",status="errno"} 1`)
}

func TestOpenExplicitDevices(t *testing.T) {
	dev := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dev, "nvme0n1"), nil, 0o600))
	fl, err := fleet.Open(fleet.Options{Devices: []string{filepath.Join(dev, "nvme0n1"), filepath.Join(dev, "nvme7")}, SysFS: sysfsFixture})
	require.NoError(t, err)
	defer fl.Close()
	require.Len(t, fl.Controllers, 2)
	require.Equal(t, "nvme0", fl.Controllers[0].Name, "a namespace node is labelled with its controller")
	require.Equal(t, "S5XYNA0R100001", fl.Controllers[0].Serial, "a namespace node takes its controller's sysfs identity")
	require.NotNil(t, fl.Controllers[0].Device)
	require.Error(t, fl.Controllers[1].OpenErr)
}

func TestOpenFallback(t *testing.T) {
	called := false
	fallback := func() ([]*fleet.Controller, error) {
		called = true
		return []*fleet.Controller{{Name: "nvme0", Device: admin.New("nvme0", nil), Simulated: true}}, nil
	}

	// sysfs has controllers: the fallback is not used.
	fl, err := fleet.Open(fleet.Options{SysFS: sysfsFixture, DevFS: t.TempDir(), Fallback: fallback})
	require.NoError(t, err)
	require.False(t, called)
	require.Len(t, fl.Controllers, 3)
	fl.Close()

	// No NVMe at all: the fallback stands in, and gets a poller.
	fl, err = fleet.Open(fleet.Options{SysFS: t.TempDir(), DevFS: t.TempDir(), Fallback: fallback})
	require.NoError(t, err)
	require.True(t, called)
	require.Len(t, fl.Controllers, 1)
	require.True(t, fl.Controllers[0].Simulated)
	require.NotNil(t, fl.Controllers[0].Poller)

	// A fallback that fails fails the open.
	_, err = fleet.Open(fleet.Options{SysFS: t.TempDir(), Fallback: func() ([]*fleet.Controller, error) { return nil, errors.New("no sim") }})
	require.ErrorContains(t, err, "no sim")
}

func TestOpenRefusesTheSameControllerTwice(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"nvme0", "nvme0n1"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o600))
	}
	a, b := filepath.Join(dir, "nvme0"), filepath.Join(dir, "nvme0n1")
	_, err := fleet.Open(fleet.Options{Devices: []string{a, b}})
	require.ErrorIs(t, err, fleet.ErrSameController)
	require.ErrorContains(t, err, a+" and "+b+" reach nvme0")
}

func TestOpenMissingSysfsRoot(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-sys")
	_, err := fleet.Open(fleet.Options{SysFS: missing, Fallback: func() ([]*fleet.Controller, error) {
		t.Fatal("a missing sysfs root must not fall back to the simulator")
		return nil, nil
	}})
	require.ErrorIs(t, err, fleet.ErrSysfsRoot)
	require.ErrorContains(t, err, missing)
}

// TestOpenReplayDir: one controller per subfolder with its identity and
// namespaces; an identity file that is refused (here a directory at
// serial) costs its label only, not the device (issue 33).
func TestOpenReplayDir(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, fixture.OCPDrive().Write(filepath.Join(root, "nvme0")))
	seed := fixture.Seed000Drive()
	seed.Text = true
	require.NoError(t, seed.Write(filepath.Join(root, "nvme1")))
	require.NoError(t, os.Remove(filepath.Join(root, "nvme1", "serial")))
	require.NoError(t, os.Mkdir(filepath.Join(root, "nvme1", "serial"), 0o700)) // not a file

	fl, err := fleet.Open(fleet.Options{ReplayDir: root})
	require.NoError(t, err)
	defer fl.Close()
	require.Len(t, fl.Controllers, 2)
	c0, c1 := fl.Controllers[0], fl.Controllers[1]
	require.Equal(t, "nvme0", c0.Name)
	require.NotNil(t, c0.Poller)
	require.Equal(t, []uint32{1}, c0.NSIDs())
	require.Equal(t, "nvme0n1", c0.Namespaces[0].Block)
	require.NotNil(t, c1.Device, "a cosmetic identity file does not take the device down")
	require.NoError(t, c1.OpenErr)
	require.Empty(t, c1.Serial)
	require.NotEmpty(t, c1.Model)

	_, err = fleet.Open(fleet.Options{ReplayDir: filepath.Join(root, "missing")})
	require.Error(t, err)
}
