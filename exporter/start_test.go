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

// TestCosmeticIdentityFileAtStart (issue 33, low): an identity file that
// is refused (a FIFO, a symlinked serial, a 13 MB model) costs its label,
// with a warning, not the device: it used to take the whole device down.
func TestCosmeticIdentityFileAtStart(t *testing.T) {
	seed := fixture.Seed000Drive()
	seed.Text = true
	root := writeFleet(t, map[string]fixture.Drive{"nvme0": fixture.OCPDrive(), "nvme1": seed})
	model := filepath.Join(root, "nvme1", "model")
	require.NoError(t, os.Remove(model))
	require.NoError(t, syscall.Mkfifo(model, 0o600))
	serial := filepath.Join(root, "nvme0", "serial")
	_ = os.Remove(serial)
	require.NoError(t, os.Symlink("/etc/hostname", serial))
	require.NoError(t, os.WriteFile(filepath.Join(root, "nvme1", "firmware_rev"), make([]byte, 13<<20), 0o644))
	base, logs := startExporter(t, "--nvme.replay="+root, "--config.file="+writeConfig(t, ""))
	mfs := parse(t, scrape(t, base+"/metrics"))
	for _, dev := range []string{"nvme0", "nvme1"} {
		v, ok := value(mfs, "walab_nvme_up", map[string]string{"device": dev})
		require.True(t, ok, dev)
		require.Equal(t, 1.0, v, dev)
	}
	require.Contains(t, logs.String(), "replay identity file refused")
	require.NotContains(t, logs.String(), "cannot open NVMe controller")
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
	require.Contains(t, logs.String(), `(known: blockdev, cpu, filesystem, host, innodb, io_size, irq, network, nvme, placement_trace, process, profile, sim, streams, wa)`, "each name once")
}

// TestFlagsThatMeanNothing (issue 42, low): a zero --nvme.read-timeout
// (wait for a hung device for ever), a zero profile frequency or top, and
// an empty --web.mutations-host are
// refused before anything starts, naming the flag.
func TestFlagsThatMeanNothing(t *testing.T) {
	for args, want := range map[string]string{
		"--nvme.read-timeout=0":    "--nvme.read-timeout must be positive",
		"--web.mutations-host=":    "--web.mutations-host",
		"--web.mutations-host=a:1": "without a port",
		// issue 54: 0 is refused as -1 is, not taken as the default
		"--collector.profile.frequency=0": "--collector.profile.frequency=0: must be 1 to",
		"--collector.profile.top=0":       "--collector.profile.top=0: must be 1 to",
	} {
		logs := &syncBuffer{}
		code := run(context.Background(), []string{args, "--web.listen-address=127.0.0.1:0"}, logs)
		require.NotZero(t, code, args)
		require.Contains(t, logs.String(), want, args)
		require.NotContains(t, logs.String(), "Listening on", args)
	}
}
