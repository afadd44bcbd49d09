package compare

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// runSpec is a synthetic run: WA per hour (0 = idle hour).
type runSpec struct {
	id, scenario string
	start        time.Time
	wa           []float64
}

// openMetrics writes per-minute counters and run_info for the runs, in the
// format `promtool tsdb create-blocks-from openmetrics` backfills.
func openMetrics(runs []runSpec) []byte {
	var host, nand, info bytes.Buffer
	var h, n float64
	for _, r := range runs {
		minutes := 60 * len(r.wa)
		for m := 0; m <= minutes; m++ {
			ts := r.start.Add(time.Duration(m) * time.Minute).Unix()
			if m > 0 {
				if wa := r.wa[(m-1)/60]; wa > 0 {
					h += MiB
					n += wa * MiB
				}
			}
			fmt.Fprintf(&host, "walab_nvme_host_written_bytes_total{device=\"nvme0\",source=\"sim\"} %g %d\n", h, ts)
			fmt.Fprintf(&nand, "walab_nvme_media_written_bytes_total{device=\"nvme0\",source=\"sim\"} %g %d\n", n, ts)
			fmt.Fprintf(&info, "walab_loadgen_run_info{run_id=%q,scenario=%q,target=\"mysql1\",workload=\"tpcc\"} 1 %d\n", r.id, r.scenario, ts)
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

// startPrometheus backfills the runs into a TSDB and serves it on loopback.
func startPrometheus(t *testing.T, runs []runSpec) v1.API {
	t.Helper()
	promtool := testenv.RequireBinary(t, "promtool")
	prom := testenv.RequireBinary(t, "prometheus")
	dir := t.TempDir()
	om := filepath.Join(dir, "data.om")
	require.NoError(t, os.WriteFile(om, openMetrics(runs), 0o644))
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
	c, err := api.NewClient(api.Config{Address: "http://" + a})
	require.NoError(t, err)
	return v1.NewAPI(c)
}

func repeatWA(wa float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = wa
	}
	return out
}

// TestCompareAgainstPrometheus: a baseline (WA 2 warming up, then 2.5) and
// a streams run 30 hours later (WA 2.2 after warm-up, one idle hour) give
// seed 000's 12 % reduction over the last 12 non-zero hours.
func TestCompareAgainstPrometheus(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	cand := append([]float64{2, 2, 2.2, 2.2, 0}, repeatWA(2.2, 10)...)
	runs := []runSpec{
		{id: "b1", scenario: "baseline", start: t0, wa: append([]float64{2, 2}, repeatWA(2.5, 12)...)},
		{id: "c1", scenario: "streams", start: t0.Add(30*time.Hour + 17*time.Minute), wa: cand},
	}
	papi := startPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Compare(ctx, Source{API: papi}, Options{Baseline: "b1", Candidate: "c1", Device: "nvme0",
		From: t0.Add(-time.Hour), To: time.Now()})
	require.NoError(t, err)

	require.Equal(t, t0, res.Runs[0].Start)
	require.Equal(t, t0.Add(14*time.Hour), res.Runs[0].End)
	require.Equal(t, "streams", res.Runs[1].Scenario)
	require.Len(t, res.Tables[0], 14)
	require.Len(t, res.Tables[1], 15)
	for i, h := range res.Tables[0] {
		require.Equal(t, i+1, h.Hour)
		require.InDelta(t, 60*MiB, h.HostBytes, 1e-3)
		require.InDelta(t, runs[0].wa[i], h.WA(), 1e-9, "baseline hour %d", h.Hour)
	}
	require.False(t, res.Tables[1][4].NonZero(), "candidate hour 5 is idle")
	require.Len(t, res.Last[1], 12)
	require.Equal(t, 3, res.Last[1][0].Hour)
	require.InDelta(t, 2.5, res.WA[0], 1e-9)
	require.InDelta(t, 2.2, res.WA[1], 1e-9)
	require.InDelta(t, 0.12, res.Reduction, 1e-9)

	var out bytes.Buffer
	require.NoError(t, res.Write(&out, 12))
	require.Contains(t, out.String(), "WA reduction (baseline - candidate) / baseline: 12.00%")
	require.Equal(t, 14+15+2*3+1, strings.Count(out.String(), "\n")-2, "tables, headers and summaries:\n%s", out.String())
}

func TestCompareErrors(t *testing.T) {
	t0 := time.Now().Add(-10 * time.Hour).Truncate(time.Hour)
	papi := startPrometheus(t, []runSpec{{id: "short", scenario: "baseline", start: t0, wa: []float64{0.0}}})
	ctx := context.Background()
	src := Source{API: papi}
	tests := []struct {
		name, baseline, want string
	}{
		{"unknown run", "nope", "no walab_loadgen_run_info"},
		{"bad id", `x"}`, "only letters"},
		{"idle run", "short", "no hour with host writes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(ctx, src, Options{Baseline: tt.baseline, Candidate: "short", Device: "nvme0", From: t0.Add(-time.Hour), To: time.Now()})
			require.ErrorContains(t, err, tt.want)
		})
	}
}
