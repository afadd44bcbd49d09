package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/state"
)

// TestExporterLostMidRun: the database host's exporter lost during a run
// left the run counted and the experiment a success (exit 0); only
// report.md said the end fingerprint was missing. The run fails, naming
// what its end fingerprint could not read and why, and is not counted:
// its WA is unknown.
func TestExporterLostMidRun(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "exporter-gone")
	var scrapes atomic.Int64
	exp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat(gone); err == nil {
			// The host is gone: the connection drops with no answer.
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		n := scrapes.Add(1)
		fmt.Fprintf(w, `walab_nvme_info{device="nvme0",firmware="F",model="M",serial="S",simulated="false",source="ocp_c0"} 1
walab_nvme_capacity_bytes{device="nvme0"} 1000
walab_nvme_host_written_bytes_total{device="nvme0",source="ocp_c0"} %d
walab_nvme_media_written_bytes_total{device="nvme0",source="ocp_c0"} %d
`, 100*n, 150*n)
	}))
	t.Cleanup(exp.Close)
	yml := fmt.Sprintf("name: lost\nexporter: %s\ndevice: nvme0\nruns:\n  - {name: r, command: 'touch %s'}\n", exp.URL, gone)
	e, err := create([]byte(yml), filepath.Join(dir, "out"))
	require.NoError(t, err)
	e.PollEvery, e.KillGrace = 20*time.Millisecond, time.Second
	err = e.Execute(context.Background())
	require.ErrorContains(t, err, "step r/r1/run: run lost-r-r1: the end fingerprint could not read the drive's counters (nvme0)")
	require.ErrorContains(t, err, "drive: ", "the reason is given")
	st := e.State()
	require.Equal(t, state.StatusFailed, st.Steps["r/r1/run"].Status)
	require.Empty(t, st.Runs, "a run without its end counters is not counted")
	_, err = os.Stat(filepath.Join(dir, "out", "runs", "lost-r-r1", "fingerprint-end.json"))
	require.NoError(t, err, "the end fingerprint is kept, with its errors")
}
