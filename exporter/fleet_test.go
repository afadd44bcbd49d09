package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

var sysfsFixture = filepath.Join("..", "internal", "nvme", "sysfs", "testdata", "sys")

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestBuildFleetFromSysfs(t *testing.T) {
	dev := t.TempDir()
	// nvme0 is a regular file: open works, every ioctl fails (ENOTTY), like a
	// node the exporter may open but not use. nvme2 and nvme10 do not exist.
	require.NoError(t, os.WriteFile(filepath.Join(dev, "nvme0"), nil, 0o600))
	o := &options{paths: collector.Paths{SysFS: sysfsFixture, DevFS: dev}}
	fl, err := buildFleet(o, config.Empty(), quiet())
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
	set, err := collector.New(collector.Env{Logger: quiet(), Config: config.Empty(), Fleet: fl}, "nvme")
	require.NoError(t, err)
	reg := newRegistry(t, set)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	body := gatherText(t, mfs)
	require.Contains(t, body, `walab_nvme_info{device="nvme10",firmware="3.10",model="HWE52P434T0L005N",serial="SER10",simulated="false",source="unknown",unit_confirmed="true"} 1`)
	require.Contains(t, body, `walab_nvme_up{device="nvme0"} 0`)
	require.Contains(t, body, `walab_nvme_up{device="nvme2"} 0`)
	require.Contains(t, body, `walab_nvme_admin_command_errors_total{device="nvme0",opcode="identify",status="errno"} 1`)
}

func TestBuildFleetExplicitDevices(t *testing.T) {
	dev := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dev, "nvme0n1"), nil, 0o600))
	o := &options{devices: []string{filepath.Join(dev, "nvme0n1"), filepath.Join(dev, "nvme7")}, paths: collector.Paths{SysFS: sysfsFixture}}
	fl, err := buildFleet(o, config.Empty(), quiet())
	require.NoError(t, err)
	defer fl.Close()
	require.Len(t, fl.Controllers, 2)
	require.Equal(t, "nvme0", fl.Controllers[0].Name, "a namespace node is labelled with its controller")
	require.Equal(t, "S5XYNA0R100001", fl.Controllers[0].Serial, "a namespace node takes its controller's sysfs identity")
	require.NotNil(t, fl.Controllers[0].Device)
	require.Error(t, fl.Controllers[1].OpenErr)
}

func TestBuildFleetSimulatorHook(t *testing.T) {
	called := false
	prevSim := simControllers // the package's default wiring (exporter/sim.go)
	simControllers = func(*config.File, *slog.Logger) ([]*fleet.Controller, error) {
		called = true
		return []*fleet.Controller{{Name: "nvme0", Device: admin.New("nvme0", nil), Simulated: true}}, nil
	}
	defer func() { simControllers = prevSim }()

	// sysfs has controllers: the hook is not used.
	fl, err := buildFleet(&options{paths: collector.Paths{SysFS: sysfsFixture, DevFS: t.TempDir()}}, config.Empty(), quiet())
	require.NoError(t, err)
	require.False(t, called)
	require.Len(t, fl.Controllers, 3)

	// No NVMe at all: the simulator stands in, and gets a poller.
	fl, err = buildFleet(&options{paths: collector.Paths{SysFS: t.TempDir(), DevFS: t.TempDir()}}, config.Empty(), quiet())
	require.NoError(t, err)
	require.True(t, called)
	require.Len(t, fl.Controllers, 1)
	require.True(t, fl.Controllers[0].Simulated)
	require.NotNil(t, fl.Controllers[0].Poller)
}

func TestBuildFleetBadConfig(t *testing.T) {
	f, err := config.Parse([]byte("nvme:\n  devices:\n    nvme0: {source: nonsense}\n"))
	require.NoError(t, err)
	_, err = buildFleet(&options{replayDir: t.TempDir()}, f, quiet())
	require.ErrorContains(t, err, "nvme.devices.nvme0.source")
}

func TestExplicitDevicesRefuseTheSameControllerTwice(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"nvme0", "nvme0n1"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o600))
	}
	_, err := buildFleet(&options{devices: []string{filepath.Join(dir, "nvme0"), filepath.Join(dir, "nvme0n1")}}, config.Empty(), quiet())
	require.ErrorContains(t, err, "reach the same controller nvme0")
}

// TestMissingSysfsIsAnError: a --path.sysfs that does not exist stops the
// exporter with the flag named, rather than serving the simulated drive as
// if the host had no NVMe.
func TestMissingSysfsIsAnError(t *testing.T) {
	logs := &syncBuffer{}
	missing := filepath.Join(t.TempDir(), "no-such-sys")
	code := run(context.Background(), []string{"--path.sysfs=" + missing, "--config.file=" + writeConfig(t, ""), "--web.listen-address=127.0.0.1:0"}, logs)
	require.Equal(t, 1, code)
	require.Contains(t, logs.String(), "--path.sysfs "+missing)
	require.NotContains(t, logs.String(), "serving the simulated drive")
}

// TestUnreadableReplayFolderAtStart: a controller folder that cannot be
// read at start (here its model file is a FIFO) is that device down, as
// when it fails mid-run; the others are served.
func TestUnreadableReplayFolderAtStart(t *testing.T) {
	seed := fixture.Seed000Drive()
	seed.Text = true
	root := writeFleet(t, map[string]fixture.Drive{"nvme0": fixture.OCPDrive(), "nvme1": seed})
	model := filepath.Join(root, "nvme1", "model")
	require.NoError(t, os.Remove(model))
	require.NoError(t, syscall.Mkfifo(model, 0o600))
	base, logs := startExporter(t, "--nvme.replay="+root, "--config.file="+writeConfig(t, ""))
	mfs := parse(t, scrape(t, base+"/metrics"))
	v, ok := value(mfs, "walab_nvme_up", map[string]string{"device": "nvme1"})
	require.True(t, ok, "the unreadable controller is exported")
	require.Equal(t, 0.0, v)
	v, _ = value(mfs, "walab_nvme_up", map[string]string{"device": "nvme0"})
	require.Equal(t, 1.0, v)
	require.Contains(t, logs.String(), "cannot open NVMe controller")
}

// TestUnknownConfigSection: a misspelt top-level section stops the start
// with its name, as a misspelt key inside a section does.
func TestUnknownConfigSection(t *testing.T) {
	logs := &syncBuffer{}
	cfg := filepath.Join(t.TempDir(), "walab.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("wa:\n  persist: false\nfilesytem:\n  paths: [/]\n"), 0o644))
	code := run(context.Background(), []string{"--config.file=" + cfg, "--web.listen-address=127.0.0.1:0"}, logs)
	require.Equal(t, 1, code)
	require.Contains(t, logs.String(), `unknown section \"filesytem\"`)
	require.Contains(t, logs.String(), `(known: blockdev, cpu, filesystem, innodb, irq, network, nvme, placement_trace, process, sim, streams, wa)`, "each name once")
}
