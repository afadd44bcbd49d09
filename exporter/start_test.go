package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// TestMissingSysfsIsAnError: a --path.sysfs that does not exist stops the
// exporter with the flag named, rather than serving the simulated drive as
// if the host had no NVMe.
func TestMissingSysfsIsAnError(t *testing.T) {
	logs := &syncBuffer{}
	missing := filepath.Join(t.TempDir(), "no-such-sys")
	code := run(context.Background(), []string{"--path.sysfs=" + missing, "--config.file=" + writeConfig(t, ""), "--web.listen-address=127.0.0.1:0"}, logs)
	require.Equal(t, 1, code)
	require.Regexp(t, `--path.sysfs: [^"]*`+regexp.QuoteMeta(missing), logs.String())
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
	require.Contains(t, logs.String(), `(known: blockdev, cpu, filesystem, host, innodb, irq, network, nvme, placement_trace, process, sim, streams, wa)`, "each name once")
}
