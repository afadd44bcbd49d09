package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/state"
)

// fakeExporter serves a drive whose host counter grows by step bytes per
// scrape (capacity 1000 bytes).
func fakeExporter(t *testing.T, step float64) *httptest.Server {
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := float64(n.Add(1)) * step
		fmt.Fprintf(w, `walab_nvme_info{device="nvme0",firmware="F",model="M",serial="S",simulated="false",source="ocp_c0"} 1
walab_nvme_capacity_bytes{device="nvme0"} 1000
walab_nvme_host_written_bytes_total{device="nvme0",source="ocp_c0"} %g
walab_nvme_media_written_bytes_total{device="nvme0",source="ocp_c0"} %g
`, host, 1.5*host)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestPreconditionWritten: a precondition step with written: N ends once
// the drive took N capacities of host writes, as a success, and says so.
func TestPreconditionWritten(t *testing.T) {
	exp := fakeExporter(t, 400) // 0.4 capacities per scrape
	dir := t.TempDir()
	yml := fmt.Sprintf(`name: pre
exporter: %s
device: nvme0
precondition:
  - {command: sleep 60, written: 2}
runs:
  - {name: r, command: 'true'}
`, exp.URL)
	e, err := create([]byte(yml), filepath.Join(dir, "out"))
	require.NoError(t, err)
	e.PollEvery, e.KillGrace = 20*time.Millisecond, time.Second
	start := time.Now()
	require.NoError(t, e.Execute(context.Background()))
	require.Less(t, time.Since(start), 30*time.Second, "stopped by the written condition, not by sleep's end")
	st := e.State().Steps["r/precondition/1"]
	require.Equal(t, state.StatusDone, st.Status)
	require.True(t, strings.HasPrefix(st.Note, "stopped after 2.00 drive capacities"), st.Note)
	// The run's WA comes from the fingerprints' counters (1.5 by construction).
	require.Len(t, e.State().Runs, 1)
	require.InDelta(t, 1.5, *e.State().Runs[0].WA, 1e-9)
}

// simExporter serves a simulated drive whose re-preconditioning counter
// (and run mark) jump once the file touched exists: the run's command
// touches it, as a POST /api/v1/sim/precondition (or run-start) from
// anyone in the middle of a run would move them.
func simExporter(t *testing.T, touched string, moveMark bool) *httptest.Server {
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pre, mark := 0.0, 1.7e9
		if _, err := os.Stat(touched); err == nil {
			if moveMark {
				mark += 24
			} else {
				pre = 5e9
			}
		}
		if r.URL.Path == "/api/v1/sim/placement" {
			fmt.Fprintf(w, `{"placement":true,"fill_ratio":0.5,"precondition_written_bytes":%g}`, pre)
			return
		}
		host := float64(n.Add(1)) * 100
		fmt.Fprintf(w, `walab_nvme_info{device="nvmesim0",firmware="F",model="M",serial="S",simulated="true",source="ocp_c0"} 1
walab_nvme_host_written_bytes_total{device="nvmesim0",source="ocp_c0"} %g
walab_nvme_media_written_bytes_total{device="nvmesim0",source="ocp_c0"} %g
walab_nvme_run_start_timestamp_seconds{device="nvmesim0"} %g
`, host, 1.5*host, mark)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestRunDisturbedFails: a run during which the simulated drive was
// re-preconditioned, or the exporter's run mark moved, FAILS and names
// what happened; it is not counted. Before, its WA was counted as the
// workload's.
func TestRunDisturbedFails(t *testing.T) {
	for _, tt := range []struct {
		moveMark bool
		want     string
	}{
		{false, "the drive nvmesim0 was preconditioned during the run (5e+09 bytes by POST /api/v1/sim/precondition)"},
		{true, "the exporter's run mark for nvmesim0 moved during the run (24 s later: POST /api/v1/run-start)"},
	} {
		dir := t.TempDir()
		touched := filepath.Join(dir, "touched")
		exp := simExporter(t, touched, tt.moveMark)
		yml := fmt.Sprintf("name: dist\nexporter: %s\ndevice: nvmesim0\nruns:\n  - {name: r, command: 'touch %s'}\n", exp.URL, touched)
		e, err := create([]byte(yml), filepath.Join(dir, "out"))
		require.NoError(t, err)
		e.PollEvery, e.KillGrace = 20*time.Millisecond, time.Second
		var out strings.Builder
		e.Stdout = &out
		err = e.Execute(context.Background())
		require.Error(t, err)
		require.Contains(t, err.Error(), tt.want)
		require.Empty(t, e.State().Runs, "a disturbed run is not counted")
		require.Contains(t, out.String(), "FAILED")
	}
}
