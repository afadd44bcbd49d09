package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// raidExporter serves seed 001's drives under md0 (nvme2 without a NAND
// counter) and nvme1n1's request sizes; at *n, the drives have written n
// GiB more to the host side and 1.5 n GiB (nvme0) or 2 n GiB (nvme1) to
// NAND, and nvme1n1 has issued 100 n writes of 16 KiB.
func raidExporter(t *testing.T, at *int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		n := *at
		g := float64(n) * (1 << 30)
		fmt.Fprintf(w, "# TYPE walab_nvme_info gauge\n")
		for i := 0; i < 3; i++ {
			fmt.Fprintf(w, "walab_nvme_info{device=\"nvme%d\",firmware=\"F\",model=\"PBlaze4\",serial=\"S%d\",simulated=\"false\",source=\"ocp_c0\"} 1\n", i, i)
		}
		fmt.Fprintf(w, "# TYPE walab_nvme_host_written_bytes_total counter\n")
		for i := 0; i < 3; i++ {
			fmt.Fprintf(w, "walab_nvme_host_written_bytes_total{device=\"nvme%d\",source=\"ocp_c0\"} %g\n", i, 1000*(1<<30)+g)
		}
		fmt.Fprintf(w, "# TYPE walab_nvme_media_written_bytes_total counter\n")
		fmt.Fprintf(w, "walab_nvme_media_written_bytes_total{device=\"nvme0\",source=\"ocp_c0\"} %g\n", 2000*(1<<30)+1.5*g)
		fmt.Fprintf(w, "walab_nvme_media_written_bytes_total{device=\"nvme1\",source=\"ocp_c0\"} %g\n", 2000*(1<<30)+2*g)
		fmt.Fprintf(w, "# TYPE walab_blockdev_leaf_info gauge\n")
		for i := 0; i < 3; i++ {
			fmt.Fprintf(w, "walab_blockdev_leaf_info{array=\"md0\",controller=\"nvme%d\",device=\"nvme%dn1\"} 1\n", i, i)
		}
		fmt.Fprintf(w, "# TYPE walab_blockdev_io_size_bytes histogram\n")
		for _, le := range []string{"4096", "16384", "+Inf"} {
			c := 100 * n
			if le == "4096" {
				c = 0
			}
			fmt.Fprintf(w, "walab_blockdev_io_size_bytes_bucket{device=\"nvme1n1\",op=\"write\",le=%q} %d\n", le, c)
		}
		fmt.Fprintf(w, "walab_blockdev_io_size_bytes_sum{device=\"nvme1n1\",op=\"write\"} %d\nwalab_blockdev_io_size_bytes_count{device=\"nvme1n1\",op=\"write\"} %d\n", 100*n*16384, 100*n)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestReportPerDevice: a run's fingerprints record every drive the
// exporter reports and the request-size histograms, and the report prints
// seed 001's per-drive table (host and NAND GiB at start and end, WA per
// member; nvme2's NAND absent, not 0) and the run's size profile.
func TestReportPerDevice(t *testing.T) {
	at := 0
	srv := raidExporter(t, &at)
	yml := "name: rep\nprometheus: http://127.0.0.1:1\ndevice: nvme0\nexporter: " + srv.URL + "\nruns:\n  - {name: base, command: 'true'}\n"
	out := filepath.Join(t.TempDir(), "out")
	e, err := create([]byte(yml), out)
	require.NoError(t, err)
	rec := state.RunRecord{Run: "base", RunID: "rep-base-r1", Rep: 1, Dir: filepath.Join("runs", "rep-base-r1")}
	require.NoError(t, os.MkdirAll(filepath.Join(out, rec.Dir), 0o755))
	for i, point := range []string{"start", "end"} {
		at = i + 1
		f := newRunStep(e).fingerprint(context.Background(), plan.Item{}, rec.RunID, point, nil)
		require.Len(t, f.Drives, 3, "%v", f.Errors)
		require.NoError(t, state.WriteJSON(filepath.Join(out, rec.Dir, "fingerprint-"+point+".json"), f))
	}
	e.state.Runs = []state.RunRecord{rec}
	r := e.Report()
	t.Log(r)
	require.Contains(t, r, "| nvme0 | S0 | md0 | 1001.000 | 1002.000 | 1.000 | 2001.500 | 2003.000 | 1.500 | 1.500 |  |\n")
	require.Contains(t, r, "| nvme1 | S1 | md0 | 1001.000 | 1002.000 | 1.000 | 2002.000 | 2004.000 | 2.000 | 2.000 |  |\n")
	require.Contains(t, r, "| nvme2 | S2 | md0 | 1001.000 | 1002.000 | 1.000 | — | — | — | — |  |\n")
	require.Contains(t, r, "| nvme1n1 | write | 100 | 16 KiB | 16 KiB 100.0% |  |\n")
}
