package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExperimentRefusesDevZero: a device as the plan is refused at once,
// not read until memory runs out.
func TestExperimentRefusesDevZero(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 2, run([]string{"experiment", "run", "/dev/zero", "--dry-run"}, &out, &errOut))
	require.Contains(t, errOut.String(), "/dev/zero is a character device: not a regular file")
}

// TestExperimentExporterLostExits1: the database host's exporter lost
// during a run left `walab experiment run` at exit 0 with the run counted;
// the operator now sees the failed run, what its end fingerprint lacks and
// how to go on, and the exit status is 1.
func TestExperimentExporterLostExits1(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "exporter-gone")
	exp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat(gone); err == nil {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		fmt.Fprintln(w, `walab_nvme_info{device="nvme0",firmware="F",model="M",serial="S",simulated="false",source="ocp_c0"} 1`)
		fmt.Fprintln(w, `walab_nvme_host_written_bytes_total{device="nvme0",source="ocp_c0"} 100`)
		fmt.Fprintln(w, `walab_nvme_media_written_bytes_total{device="nvme0",source="ocp_c0"} 150`)
	}))
	t.Cleanup(exp.Close)
	plan := filepath.Join(dir, "plan.yml")
	require.NoError(t, os.WriteFile(plan, []byte(fmt.Sprintf("name: lost\nexporter: %s\ndevice: nvme0\nruns:\n  - {name: r, command: 'touch %s'}\n", exp.URL, gone)), 0o644))
	var out, errOut bytes.Buffer
	out1 := filepath.Join(dir, "out")
	require.Equal(t, 1, run([]string{"experiment", "run", plan, "--out", out1}, &out, &errOut), "%s\n%s", out.String(), errOut.String())
	require.Contains(t, out.String(), "r/r1/run FAILED: run lost-r-r1: the end fingerprint could not read the drive's counters (nvme0)")
	require.Contains(t, errOut.String(), "continue with: walab experiment resume --out "+out1)
}
