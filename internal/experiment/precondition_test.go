package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	plan := fmt.Sprintf(`name: pre
exporter: %s
device: nvme0
precondition:
  - {command: sleep 60, written: 2}
runs:
  - {name: r, command: 'true'}
`, exp.URL)
	e, err := create([]byte(plan), filepath.Join(dir, "out"))
	require.NoError(t, err)
	e.PollEvery, e.KillGrace = 20*time.Millisecond, time.Second
	start := time.Now()
	require.NoError(t, e.Execute(context.Background()))
	require.Less(t, time.Since(start), 30*time.Second, "stopped by the written condition, not by sleep's end")
	st := e.State().Steps["r/precondition/1"]
	require.Equal(t, StatusDone, st.Status)
	require.True(t, strings.HasPrefix(st.Note, "stopped after 2.00 drive capacities"), st.Note)
	// The run's WA comes from the fingerprints' counters (1.5 by construction).
	require.Len(t, e.State().Runs, 1)
	require.InDelta(t, 1.5, *e.State().Runs[0].WA, 1e-9)
}
