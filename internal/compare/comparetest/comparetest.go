// Package comparetest serves synthetic loadgen runs from a real Prometheus
// for tests: the runs are written as OpenMetrics, backfilled into a TSDB
// with promtool, and served by a prometheus process on loopback.
package comparetest

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/testenv"
)

// Run is a synthetic run: WA per hour (0 = idle hour).
type Run struct {
	ID, Scenario string
	Start        time.Time
	WA           []float64
	// NoNAND lists hours (1-based, as in the table) whose NAND samples are
	// absent, as when the drive's NAND source fails: the drive keeps
	// writing, the host counter keeps its samples.
	NoNAND []int
}

// OpenMetrics writes per-minute counters and run_info for the runs, in the
// format `promtool tsdb create-blocks-from openmetrics` backfills.
func OpenMetrics(runs []Run) []byte {
	var host, nand, info bytes.Buffer
	var h, n float64
	for _, r := range runs {
		minutes := 60 * len(r.WA)
		for m := 0; m <= minutes; m++ {
			ts := r.Start.Add(time.Duration(m) * time.Minute).Unix()
			if m > 0 {
				if wa := r.WA[(m-1)/60]; wa > 0 {
					h += compare.MiB
					n += wa * compare.MiB
				}
			}
			fmt.Fprintf(&host, "walab_nvme_host_written_bytes_total{device=\"nvme0\",source=\"ocp_c0\"} %g %d\n", h, ts)
			if m == 0 || !slices.Contains(r.NoNAND, (m-1)/60+1) {
				fmt.Fprintf(&nand, "walab_nvme_media_written_bytes_total{device=\"nvme0\",source=\"ocp_c0\"} %g %d\n", n, ts)
			}
			fmt.Fprintf(&info, "walab_loadgen_run_info{run_id=%q,scenario=%q,target=\"mysql1\",workload=\"tpcc\"} 1 %d\n", r.ID, r.Scenario, ts)
		}
	}
	var out bytes.Buffer
	out.WriteString("# TYPE walab_nvme_host_written_bytes counter\n")
	out.Write(host.Bytes())
	out.WriteString("# TYPE walab_nvme_media_written_bytes counter\n")
	out.Write(nand.Bytes())
	out.WriteString("# TYPE walab_loadgen_run_info gauge\n")
	out.Write(info.Bytes())
	out.WriteString("# EOF\n")
	return out.Bytes()
}

// StartPrometheus backfills the runs into a TSDB and serves it on loopback.
func StartPrometheus(t testing.TB, runs []Run) v1.API {
	t.Helper()
	c, err := api.NewClient(api.Config{Address: StartPrometheusURL(t, runs)})
	require.NoError(t, err)
	return v1.NewAPI(c)
}

// StartPrometheusURL is StartPrometheus returning the server's base URL.
func StartPrometheusURL(t testing.TB, runs []Run) string {
	t.Helper()
	promtool := testenv.RequireBinary(t, "promtool")
	prom := testenv.RequireBinary(t, "prometheus")
	dir := t.TempDir()
	om := filepath.Join(dir, "data.om")
	require.NoError(t, os.WriteFile(om, OpenMetrics(runs), 0o644))
	tsdb := filepath.Join(dir, "tsdb")
	out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, tsdb).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte("global: {}\n"), 0o644))
	a := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	cmd := exec.Command(prom, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+tsdb,
		"--storage.tsdb.retention.time=30d", "--web.listen-address="+a)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + a + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready: %v\n%s", err, log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	return "http://" + a
}

// RepeatWA is n hours at the same WA.
func RepeatWA(wa float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = wa
	}
	return out
}
