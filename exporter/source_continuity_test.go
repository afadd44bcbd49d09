package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// TestNANDSourceFailsMidRun: the page that carries a drive's NAND counter
// starts failing while the exporter runs. The device stays up (SMART reads),
// its source is reported down with a reason, its NAND counters and WA are
// absent — not frozen, not switched to another source — and everything
// comes back by itself when the page reads again.
func TestNANDSourceFailsMidRun(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "nvme1")
	drive := fixture.OCPDrive()
	write := func(units, media uint64) {
		t.Helper()
		drive.SMART.DataUnitsWritten = units
		drive.OCP.PMUW = media
		require.NoError(t, drive.Write(dir))
	}
	const unit = 512000
	write(2_000_000, 2_000_000*unit)
	cfg := writeConfig(t, "  interval: 1s\n")
	base, logs := startExporter(t, "--nvme.replay="+root, "--config.file="+cfg, "--nvme.cache-max-age=1ns")

	series := func() (up float64, upOK bool, wa float64, waOK bool, body string) {
		body = scrape(t, base+"/metrics")
		mfs := parse(t, body)
		up, upOK = value(mfs, "walab_nvme_source_up", map[string]string{"device": "nvme1", "source": "ocp_c0"})
		wa, waOK = value(mfs, "walab_nvme_write_amplification", map[string]string{"device": "nvme1", "window": "1h"})
		return
	}
	require.Eventually(t, func() bool {
		return scrapeHas(t, base, "walab_nvme_wa_samples{device=\"nvme1\"}")
	}, 10*time.Second, 20*time.Millisecond, "no first WA sample; log:\n%s", logs.String())
	// The host writes 1,000 units; NAND takes 3x.
	write(2_001_000, 2_000_000*unit+3*1000*unit)
	require.Eventually(t, func() bool {
		up, upOK, wa, waOK, _ := series()
		return upOK && up == 1 && waOK && wa > 2.99 && wa < 3.01
	}, 10*time.Second, 50*time.Millisecond, "no WA 3; log:\n%s", logs.String())

	// The NAND page goes away (the replay answers Invalid Field, as a
	// controller refusing the page would).
	page := filepath.Join(dir, "log-c0.bin")
	require.NoError(t, os.Remove(page))
	var body string
	require.Eventually(t, func() bool {
		var up float64
		var upOK, waOK bool
		up, upOK, _, waOK, body = series()
		return upOK && up == 0 && !waOK
	}, 10*time.Second, 50*time.Millisecond, "source never reported down with WA absent; log:\n%s", logs.String())
	mfs := parse(t, body)
	v, ok := value(mfs, "walab_nvme_up", map[string]string{"device": "nvme1"})
	require.True(t, ok)
	require.Equal(t, 1.0, v, "the device itself still reads")
	_, ok = value(mfs, "walab_nvme_media_written_bytes_total", map[string]string{"device": "nvme1"})
	require.False(t, ok, "no frozen NAND counter")
	_, ok = value(mfs, "walab_nvme_host_written_bytes_total", map[string]string{"device": "nvme1"})
	require.False(t, ok, "no host counter under the failing source's label")
	_, ok = value(mfs, "walab_nvme_info", map[string]string{"device": "nvme1", "source": "ocp_c0"})
	require.True(t, ok, "the source is kept, not switched to none")
	n, ok := value(mfs, "walab_nvme_source_errors_total", map[string]string{"device": "nvme1", "source": "ocp_c0", "reason": "0x4002"})
	require.True(t, ok)
	require.GreaterOrEqual(t, n, 1.0)
	for _, w := range []string{"1h", "24h", "run"} {
		_, ok := value(mfs, "walab_nvme_write_amplification", map[string]string{"device": "nvme1", "window": w})
		require.False(t, ok, "WA %s while the source fails", w)
	}

	// Back, with more writes: the same source, WA over the whole history.
	write(2_002_000, 2_000_000*unit+5*1000*unit)
	require.Eventually(t, func() bool {
		up, upOK, wa, waOK, _ := series()
		return upOK && up == 1 && waOK && wa > 2.49 && wa < 2.51
	}, 10*time.Second, 50*time.Millisecond, "no recovery; log:\n%s", logs.String())
	require.Contains(t, logs.String(), "NAND source read failed")
	require.Contains(t, logs.String(), "NAND source readable again")
	require.NotContains(t, logs.String(), "windows reset")
}

func scrapeHas(t *testing.T, base, s string) bool {
	t.Helper()
	return strings.Contains(scrape(t, base+"/metrics"), s)
}
