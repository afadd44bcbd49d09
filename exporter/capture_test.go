package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// TestCaptureRoundTrip captures from a replay fleet and checks that every
// captured file is byte-identical to the one it was read from:
// capture(replay(X)) == X for the files read.
func TestCaptureRoundTrip(t *testing.T) {
	src := writeFleet(t, fleetDrives())
	out := t.TempDir()
	logs := &syncBuffer{}
	code := run(context.Background(), []string{"capture", "--nvme.replay=" + src, "--out=" + out, "--config.file=" + writeConfig(t, "")}, logs)
	require.Equal(t, 0, code, logs.String())

	want := map[string][]string{
		"nvme0": {"feat-1d.bin", "id-ctrl.bin", "id-ns-1.bin", "log-02.bin", "log-22-lsi1.bin"},
		"nvme1": {"id-ctrl.bin", "id-ns-1.bin", "log-02.bin", "log-c0.bin"},
		"nvme2": {"firmware_rev", "id-ctrl.bin", "id-ns-1.bin", "log-02.bin", "log-c0.bin", "model", "serial"},
		"nvme3": {"id-ctrl.bin", "id-ns-1.bin", "log-02.bin", "log-09-lsi1.bin"},
		"nvme4": {"id-ctrl.bin", "id-ns-1.bin", "log-02.bin"}, // 0xC0 and 0xCA unsupported: no file
	}
	for dev, files := range want {
		ents, err := os.ReadDir(filepath.Join(out, dev))
		require.NoError(t, err)
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		sort.Strings(got)
		require.Equal(t, files, got, dev)
		for _, f := range files {
			a, err := os.ReadFile(filepath.Join(src, dev, f))
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(out, dev, f))
			require.NoError(t, err)
			require.True(t, bytes.Equal(a, b), "%s/%s differs after capture", dev, f)
		}
	}

	// The capture is itself a replay directory the exporter can serve.
	out2 := t.TempDir()
	code = run(context.Background(), []string{"capture", "--nvme.replay=" + out, "--out=" + out2}, logs)
	require.Equal(t, 0, code, logs.String())
	a, err := os.ReadFile(filepath.Join(out, "nvme2", "log-c0.bin"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(out2, "nvme2", "log-c0.bin"))
	require.NoError(t, err)
	require.Equal(t, a, b)
}

func TestCaptureErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		log  string
	}{
		{name: "missing device", args: []string{"capture", "--device=/nonexistent/nvme9", "--out=" + t.TempDir()}, log: "nvme9"},
		{name: "empty replay root", args: []string{"capture", "--nvme.replay=" + t.TempDir(), "--out=" + t.TempDir()}, log: "no controller folders"},
		{name: "out is required", args: []string{"capture", "--nvme.replay=" + t.TempDir()}, log: "'--out' not provided"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &syncBuffer{}
			code := run(context.Background(), tt.args, logs)
			require.NotEqual(t, 0, code)
			require.Contains(t, logs.String(), tt.log)
		})
	}
}

func TestHelpAndVersionDoNotServe(t *testing.T) {
	for _, arg := range []string{"--help", "--version", "capture --help"} {
		t.Run(arg, func(t *testing.T) {
			logs := &syncBuffer{}
			code := run(context.Background(), strings.Fields(arg), logs)
			require.Equal(t, 0, code)
			require.NotContains(t, logs.String(), "starting walab exporter")
		})
	}
	logs := &syncBuffer{}
	require.Equal(t, 2, run(context.Background(), []string{"--no-such-flag"}, logs))
	require.Contains(t, logs.String(), "unknown long flag")
}

// TestCaptureReplaysToTheSameMetrics: capture the simulated drive (Streams
// enabled, 5 streams open), serve the capture, and the placement series —
// every page the streams collector reads — are the same as on the drive.
func TestCaptureReplaysToTheSameMetrics(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "sim.yml")
	simConfig(t, cfg, "true")
	sysfs, devfs, out := t.TempDir(), t.TempDir(), t.TempDir()
	logs := &syncBuffer{}
	code := run(context.Background(), []string{"capture", "--path.sysfs=" + sysfs, "--path.devfs=" + devfs, "--config.file=" + cfg, "--out=" + out}, logs)
	require.Equal(t, 0, code, logs.String())

	placementSeries := func(body string) map[string]string {
		got := map[string]string{}
		for _, line := range strings.Split(body, "\n") {
			for _, p := range []string{"walab_nvme_streams_", "walab_nvme_directive_", "walab_nvme_fdp_", "walab_placement_hints_effective"} {
				if strings.HasPrefix(line, p) {
					name, value, _ := strings.Cut(line, " ")
					got[name] = value
				}
			}
		}
		return got
	}
	live, _ := startExporter(t, "--path.sysfs="+sysfs, "--path.devfs="+devfs, "--config.file="+cfg, "--collector.streams")
	replayed, _ := startExporter(t, "--nvme.replay="+out, "--path.sysfs="+sysfs, "--config.file="+writeConfig(t, ""), "--collector.streams")
	want := placementSeries(scrape(t, live+"/metrics"))
	got := placementSeries(scrape(t, replayed+"/metrics"))
	require.Equal(t, "5", want[`walab_nvme_streams_open{device="nvmesim0"}`], "the drive: %v", want)
	require.Greater(t, len(want), 10, "%v", want)
	require.Equal(t, want, got, "the capture replays to the drive's placement series")
}

// TestCaptureOfEveryFixtureKindReplaysIdentically: a fleet of every drive
// kind walab has a fixture for (FDP, OCP, seed 000's vendor page, the
// Endurance Group log, SMART only) plus one drive for every built-in
// vendor layout, its page built from the layout alone, is captured, and
// the capture served: every device-facing series (nvme and streams
// collectors) equals the one scraped from the fleet itself, and every
// layout is the source of its drive. Left out are the admin command counts
// (the capture's own reads add to them) and the scrape's durations.
func TestCaptureOfEveryFixtureKindReplaysIdentically(t *testing.T) {
	drives := fleetDrives()
	sources := []string{"fdp", "ocp_c0", "seed000_c0", "endurance_group"}
	// A layout scoped to some models gets one of them (SMARTOnlyDrive's
	// model matches no model_regex).
	models := map[string]string{"memblaze_ca_old": "P4920DT0320M00"}
	for i, l := range decode.BuiltinLayouts() {
		counts := map[string]uint64{}
		for _, f := range l.Fields {
			counts[f.Meaning] = map[string]uint64{decode.MeaningMediaWritten: 74284, decode.MeaningHostWritten: 48915, decode.MeaningGCWritten: 25369}[f.Meaning]
		}
		d := fixture.SMARTOnlyDrive()
		d.VID, d.Serial = l.Match.VID[0], fmt.Sprintf("FAM%d", i)
		if l.Match.ModelRegex != "" {
			require.Contains(t, models, l.Name, "a model %s reads", l.Name)
			d.Model = models[l.Name]
		}
		d.Vendor = &fixture.Vendor{Layout: l.Name, Counts: counts}
		drives[fmt.Sprintf("nvme%d", 5+i)] = d
		sources = append(sources, l.Name)
	}
	src := writeFleet(t, drives)
	out := t.TempDir()
	logs := &syncBuffer{}
	require.Equal(t, 0, run(context.Background(), []string{"capture", "--nvme.replay=" + src, "--out=" + out, "--config.file=" + writeConfig(t, "")}, logs), logs.String())

	deviceSeries := func(body string) []string {
		var out []string
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(line, "#") || line == "" || strings.Contains(line, "admin_command") ||
				strings.HasPrefix(line, "walab_scrape_") || !strings.HasPrefix(line, "walab_") {
				continue
			}
			out = append(out, line)
		}
		return out
	}
	args := []string{"--config.file=" + writeConfig(t, ""), "--collector.streams", "--no-collector.wa"}
	live, _ := startExporter(t, append([]string{"--nvme.replay=" + src}, args...)...)
	replayed, _ := startExporter(t, append([]string{"--nvme.replay=" + out}, args...)...)
	want := deviceSeries(scrape(t, live+"/metrics"))
	got := deviceSeries(scrape(t, replayed+"/metrics"))
	for _, s := range sources {
		require.Contains(t, strings.Join(want, "\n"), `source="`+s+`"`, "the fleet has a %s drive", s)
	}
	require.Greater(t, len(want), 100)
	require.Equal(t, want, got, "the capture replays to the same device series")
}
