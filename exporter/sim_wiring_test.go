package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/apiguard"
)

const smallSim = `sim:
  name: nvmesim0
  capacity: 256MiB
  scale: 1
  spare_factor: 0.1
  block_pages: 64
  rate: 4MB
  speed_up: 60
  tick: 0s
  placement:
    streams: %s
`

func simConfig(t *testing.T, path, streams string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte("wa:\n  persist: false\n"+strings.Replace(smallSim, "%s", streams, 1)), 0o644))
}

func placementState(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var st map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	return st
}

// Without --nvme.replay, --nvme.device or any controller in sysfs, the
// exporter serves the simulated drive: labelled simulated, probed through the
// same decoders (OCP 0xC0), counters moving, placement switchable over HTTP
// and by SIGHUP.
func TestDefaultsToSimulatedDrive(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "walab.yml")
	simConfig(t, cfg, "true")
	base, logs := startExporter(t, "--path.sysfs="+t.TempDir(), "--path.devfs="+t.TempDir(), "--config.file="+cfg, "--web.enable-mutations")

	first := scrape(t, base+"/metrics")
	require.Contains(t, first, `walab_nvme_info{device="nvmesim0"`)
	require.Regexp(t, `walab_nvme_info\{[^}]*simulated="true"[^}]*\} 1`, first)
	require.Regexp(t, `walab_nvme_info\{[^}]*source="ocp_c0"`, first)
	require.Contains(t, logs.String(), "serving the simulated drive")

	host := func(body string) float64 {
		mfs := parse(t, body)
		mf := mfs["walab_nvme_host_written_bytes_total"]
		require.NotNil(t, mf, body)
		return mf.GetMetric()[0].GetCounter().GetValue()
	}
	h0 := host(first)
	require.Eventually(t, func() bool { return host(scrape(t, base+"/metrics")) > h0 }, 30*time.Second, 100*time.Millisecond,
		"the simulated drive's host writes must advance")

	st := placementState(t, base+"/api/v1/sim/placement")
	require.Equal(t, true, st["placement"], "%v", st)
	// A cross-origin HTML form can send this POST, but not the header.
	resp, err := http.Post(base+"/api/v1/sim/placement?streams=off", "application/x-www-form-urlencoded", strings.NewReader("streams=off"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Equal(t, true, placementState(t, base+"/api/v1/sim/placement")["placement"], "the refused form switched nothing")
	req, err := apiguard.NewPost(base + "/api/v1/sim/placement?streams=off")
	require.NoError(t, err)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, false, placementState(t, base+"/api/v1/sim/placement")["placement"])

	// Re-preconditioning rewrites the whole drive: the guard refuses the
	// form, the header passes, and then every logical page is mapped.
	h1 := placementState(t, base+"/api/v1/sim/placement")["host_written_bytes"].(float64)
	resp, err = http.Post(base+"/api/v1/sim/precondition", "application/x-www-form-urlencoded", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	req, err = apiguard.NewPost(base + "/api/v1/sim/precondition")
	require.NoError(t, err)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	var pre map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&pre))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 1.0, pre["fill_ratio"])
	require.GreaterOrEqual(t, pre["host_written_bytes"].(float64), h1+256<<20, "the fill counts as host writes")

	// SIGHUP re-reads the file: placement back on without a restart.
	simConfig(t, cfg, "true")
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	require.Eventually(t, func() bool {
		return placementState(t, base+"/api/v1/sim/placement")["placement"] == true
	}, 10*time.Second, 20*time.Millisecond, "log:\n%s", logs.String())
	require.Contains(t, logs.String(), "sim: configuration reloaded")
}
