package lab

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/wa"
)

// TestExporterRestartKeepsHistory: the lab's exporter, restarted mid-run
// (killed with -9, as a crash would), keeps its WA history and its run
// window: the lab's configuration keeps wa.state_file and the simulated
// drive's state_file in the work directory.
func TestExporterRestartKeepsHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the exporter: skipped with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "exporter")
	out, err := exec.Command("go", "build", "-o", bin, "../../exporter").CombinedOutput()
	require.NoError(t, err, "go build ./exporter: %s", out)
	o := testOptions(t, 1, "a", "b")
	o.Out, o.Exporter = filepath.Join(dir, "lab"), bin
	require.NoError(t, newDir(o.Out))
	require.NoError(t, o.writeConfigsFor(hostFor(o), []string{dir}))
	svc := o.services()[0]
	require.Equal(t, "exporter", svc.name)

	p, err := startService(context.Background(), o.Out, svc, time.Minute)
	require.NoError(t, err)
	base := "http://" + o.ExporterAddr
	testenv.WaitMetric(t, base, "walab_nvme_wa_samples", time.Minute, func(v float64) bool { return v >= 2 })
	post := func(token string) int {
		req, err := http.NewRequest(http.MethodPost, base+wa.RunStartPath, nil)
		require.NoError(t, err)
		req.Header.Set("X-Walab-Request", "1")
		if token != "" {
			req.Header.Set("X-Walab-Token", token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	// The lab's exporter takes state-changing requests only with the
	// token it wrote (0600) for the lab's plan.
	require.Equal(t, http.StatusForbidden, post(""), "a run mark without the lab's token")
	token, err := os.ReadFile(o.tokenFile())
	require.NoError(t, err)
	st, err := os.Stat(o.tokenFile())
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	require.Equal(t, http.StatusOK, post(strings.TrimSpace(string(token))))
	runStart := testenv.WaitMetric(t, base, "walab_nvme_run_start_timestamp_seconds", time.Minute, func(float64) bool { return true })
	samples := testenv.WaitMetric(t, base, "walab_nvme_wa_samples", time.Minute, func(v float64) bool { return v >= 4 })
	p.kill()

	svc.name = "exporter-restarted" // its own log file
	p, err = startService(context.Background(), o.Out, svc, time.Minute)
	require.NoError(t, err)
	defer p.stop(5 * time.Second)
	after := testenv.WaitMetric(t, base, "walab_nvme_wa_samples", time.Minute, func(float64) bool { return true })
	require.GreaterOrEqual(t, after, samples, "the history goes on, not from 1")
	require.Equal(t, runStart, testenv.WaitMetric(t, base, "walab_nvme_run_start_timestamp_seconds", time.Minute, func(float64) bool { return true }),
		"the run mark survives the restart")
	require.Equal(t, 0.0, testenv.WaitMetric(t, base, "walab_nvme_wa_resets_total", time.Minute, func(float64) bool { return true }),
		"the simulated drive's counters did not go back")
	testenv.WaitMetric(t, base, `walab_nvme_write_amplification{window="run"}`, time.Minute, func(v float64) bool { return v > 0 })
}
