package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/walab/walab/internal/apiguard"
	"github.com/walab/walab/internal/golden"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

func TestEndToEndReplayFleet(t *testing.T) {
	root := writeFleet(t, fleetDrives())
	cfg := writeConfig(t, "nvme:\n  devices:\n    nvme3: {source: endurance_group}\n")
	base, logs := startExporter(t, "--nvme.replay="+root, "--config.file="+cfg)

	// Wait for the WA sampler's first sample (it runs on its own clock) so
	// the golden file holds its series too.
	var body string
	require.Eventually(t, func() bool {
		body = scrape(t, base+"/metrics")
		return strings.Count(body, "walab_nvme_wa_samples{") == 4
	}, 10*time.Second, 10*time.Millisecond, "WA sampler never sampled; log:\n%s", logs.String())
	mfs := parse(t, body)
	dev := func(name string) map[string]string { return map[string]string{"device": name} }
	check := func(metric string, labels map[string]string, want float64) {
		t.Helper()
		got, ok := value(mfs, metric, labels)
		require.True(t, ok, "%s%v missing", metric, labels)
		require.InDelta(t, want, got, want*1e-12, "%s%v", metric, labels)
	}
	for _, d := range []string{"nvme0", "nvme1", "nvme2", "nvme3", "nvme4"} {
		check("walab_nvme_up", dev(d), 1)
		check("walab_nvme_smart_data_units_written_bytes_total", dev(d), 2_000_000*512000)
		check("walab_nvme_temperature_celsius", dev(d), 310-273.15)
		check("walab_nvme_power_on_seconds_total", dev(d), 1000*3600)
		check("walab_nvme_unsafe_shutdowns_total", dev(d), 7)
		check("walab_nvme_host_write_commands_total", dev(d), 123_456_789)
		check("walab_nvme_percentage_used_ratio", dev(d), 0.03)
		check("walab_nvme_available_spare_ratio", dev(d), 1)
	}
	check("walab_nvme_info", map[string]string{"device": "nvme0", "source": "fdp", "model": "QEMU NVMe Ctrl FDP", "simulated": "false"}, 1)
	check("walab_nvme_media_written_bytes_total", map[string]string{"device": "nvme0", "source": "fdp"}, 1.5e12)
	check("walab_nvme_host_written_bytes_total", map[string]string{"device": "nvme0", "source": "fdp"}, 1e12)
	check("walab_nvme_media_written_bytes_total", map[string]string{"device": "nvme1", "source": "ocp_c0"}, 2.048e12)
	check("walab_nvme_host_written_bytes_total", map[string]string{"device": "nvme1", "source": "ocp_c0"}, 1.024e12)
	check("walab_nvme_info", map[string]string{"device": "nvme2", "source": "seed000_c0", "model": "HWE52P434T0L005N (sysfs)"}, 1)
	check("walab_nvme_gc_written_bytes_total", map[string]string{"device": "nvme2"}, 125_000_000*4096)
	check("walab_nvme_media_written_bytes_total", map[string]string{"device": "nvme2"}, 375_000_000*4096)
	check("walab_nvme_info", map[string]string{"device": "nvme3", "source": "endurance_group"}, 1)
	check("walab_nvme_media_written_bytes_total", map[string]string{"device": "nvme3"}, 2048e9)
	check("walab_nvme_info", map[string]string{"device": "nvme4", "source": "none"}, 1)
	_, ok := value(mfs, "walab_nvme_media_written_bytes_total", dev("nvme4"))
	require.False(t, ok, "a SMART-only drive has no NAND bytes")
	check("walab_nvme_capacity_bytes", dev("nvme1"), 3_840_755_982_336)
	check("walab_nvme_admin_commands_total", map[string]string{"device": "nvme1", "opcode": "get_log_page", "log_id": "0x02"}, 1)
	check("walab_nvme_admin_command_errors_total", map[string]string{"device": "nvme4", "opcode": "get_log_page", "status": "0x4002"}, 2)
	check("walab_nvme_admin_commands_refused_total", dev("nvme0"), 0)
	check("walab_scrape_collector_success", map[string]string{"collector": "nvme"}, 1)

	golden.Assert(t, filepath.Join("testdata", "e2e-output.txt"), []byte(normalize(body)))

	// Landing page and the run-start API are mounted.
	require.Contains(t, scrape(t, base+"/"), "/metrics")
	require.Contains(t, scrape(t, base+"/api/v1/run-start"), "marks")
	// Without --web.enable-mutations a run mark is refused, header or not.
	req, err := apiguard.NewPost(base + "/api/v1/run-start")
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "mutations are off by default")
	require.NotContains(t, logs.String(), "panic")
	require.Contains(t, logs.String(), `device=nvme2 nand_source=seed000_c0`)
}

func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := testenv.RequireBinary(t, "promtool")
	root := writeFleet(t, fleetDrives())
	base, _ := startExporter(t, "--nvme.replay="+root, "--config.file="+writeConfig(t, ""))
	body := scrape(t, base+"/metrics")
	require.Contains(t, body, "walab_nvme_media_written_bytes_total")

	// The whole scrape: NVMe core, WA sampler, framework and Go/process metrics.
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	// No tolerated findings: every family must pass promtool's lint.
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "promtool check metrics:\n%s", out)
	require.Empty(t, strings.TrimSpace(string(out)), "promtool check metrics findings")
}

func TestDeviceRemovedMidRun(t *testing.T) {
	root := writeFleet(t, fleetDrives())
	base, logs := startExporter(t, "--nvme.replay="+root, "--config.file="+writeConfig(t, ""), "--nvme.cache-max-age=1ns")
	mfs := parse(t, scrape(t, base+"/metrics"))
	v, ok := value(mfs, "walab_nvme_up", map[string]string{"device": "nvme2"})
	require.True(t, ok)
	require.Equal(t, 1.0, v)

	require.NoError(t, os.RemoveAll(filepath.Join(root, "nvme2")))
	time.Sleep(time.Millisecond) // let the 1ns cache age out on coarse clocks
	mfs = parse(t, scrape(t, base+"/metrics"))
	v, _ = value(mfs, "walab_nvme_up", map[string]string{"device": "nvme2"})
	require.Equal(t, 0.0, v, "the removed device is down")
	_, ok = value(mfs, "walab_nvme_info", map[string]string{"device": "nvme2", "serial": "032WFRFSK1000001", "source": "seed000_c0"})
	require.True(t, ok, "identity is still served")
	_, ok = value(mfs, "walab_nvme_media_written_bytes_total", map[string]string{"device": "nvme2"})
	require.False(t, ok, "no stale counters for a failed device")
	for _, d := range []string{"nvme0", "nvme1", "nvme3", "nvme4"} {
		v, _ := value(mfs, "walab_nvme_up", map[string]string{"device": d})
		require.Equal(t, 1.0, v, d)
	}
	v, _ = value(mfs, "walab_scrape_collector_success", map[string]string{"collector": "nvme"})
	require.Equal(t, 1.0, v, "one failed device does not fail the collector")
	require.Contains(t, logs.String(), "controller folder is gone")
}

// TestWACollectorSwitch: --no-collector.wa runs no sampler: no WA series,
// no run-start endpoint, and the nvme collector's counters are unchanged;
// with it on (the default) the sampler's scrape success is reported.
func TestWACollectorSwitch(t *testing.T) {
	root := writeFleet(t, fleetDrives())
	base, logs := startExporter(t, "--nvme.replay="+root, "--no-collector.wa", "--web.enable-mutations")
	body := scrape(t, base+"/metrics")
	require.Contains(t, body, `walab_nvme_media_written_bytes_total{device="nvme1",source="ocp_c0"}`)
	require.NotContains(t, body, "walab_nvme_write_amplification")
	require.NotContains(t, body, `collector="wa"`)
	req, err := apiguard.NewPost(base + "/api/v1/run-start")
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "no sampler, no run marks; log:\n%s", logs.String())

	base, _ = startExporter(t, "--nvme.replay="+root, "--config.file="+writeConfig(t, ""))
	require.Contains(t, scrape(t, base+"/metrics"), `walab_scrape_collector_success{collector="wa"} 1`)
}
