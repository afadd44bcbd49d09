package exporterapp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/alecthomas/kingpin/v2"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/cpuprof"
	"github.com/walab/walab/internal/hotspots"
	"github.com/walab/walab/internal/testenv"
)

// profileApp builds the exporter on the simulated drive with the profile
// collector on or off, sampling the processes named procs.
func profileApp(t *testing.T, on bool, procs ...string) *App {
	t.Helper()
	args := []string{"--no-collector.profile"}
	if on {
		args = []string{"--collector.profile"}
	}
	for _, p := range procs {
		args = append(args, "--collector.profile.process="+p)
	}
	parseFlags(t, args...)
	cfg := filepath.Join(t.TempDir(), "walab.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("wa:\n  persist: false\nsim:\n  name: nvmesim9\n  capacity: 256MiB\n  scale: 1\n  tick: 0s\n"), 0o644))
	a, err := New(Options{TelemetryPath: "/metrics", ConfigFile: cfg,
		Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}, quiet())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Close()) })
	return a
}

func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// TestProfileEndpoint: with --collector.profile, GET /debug/walab/profile
// answers a pprof profile whose top function is the busy program's
// walab_busy_spin, and /metrics then shows that function's samples.
func TestProfileEndpoint(t *testing.T) {
	cc := testenv.RequireBinary(t, "cc")
	comm := fmt.Sprintf("wlbusy%d", os.Getpid()%100000)
	bin := filepath.Join(t.TempDir(), comm)
	out, err := exec.Command(cc, "-O1", "-o", bin, "../cpuprof/testdata/busy.c").CombinedOutput()
	require.NoError(t, err, "%s", out)
	busy := exec.Command(bin, "60")
	require.NoError(t, busy.Start())
	t.Cleanup(func() { _ = busy.Process.Kill(); _ = busy.Wait() })

	a := profileApp(t, true, comm)
	if a.profiler == nil {
		if a.profileDown == cpuprof.ReasonPermission || a.profileDown == cpuprof.ReasonNoBPF || a.profileDown == cpuprof.ReasonNoPerf {
			testenv.Missing(t, "BPF CPU sampling on this machine: %s", a.profileDown)
		}
		t.Fatalf("the profiler did not start: %s", a.profileDown)
	}
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()

	raw, p, err := hotspots.Fetch(context.Background(), srv.Client(), srv.URL, 3)
	require.NoError(t, err)
	require.NotEmpty(t, raw)
	require.NotEmpty(t, p.Funcs, "no sample of the busy program in 3 s")
	require.Equal(t, hotspots.Func{Function: "walab_busy_spin", Module: comm, Samples: p.Funcs[0].Samples}, p.Funcs[0])

	code, body := get(t, srv.URL+"/metrics")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, string(body), fmt.Sprintf(`walab_profile_function_samples_total{function="walab_busy_spin",module=%q}`, comm))
	require.Contains(t, string(body), "walab_profile_up 1")

	code, _ = get(t, srv.URL+hotspots.Path+"?seconds=0")
	require.Equal(t, http.StatusBadRequest, code)
	resp, err := http.Post(srv.URL+hotspots.Path, "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

// TestProfileEndpointOff: without --collector.profile there is no
// profiler and the endpoint says how to get one.
func TestProfileEndpointOff(t *testing.T) {
	a := profileApp(t, false)
	require.Nil(t, a.profiler)
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	code, body := get(t, srv.URL+hotspots.Path)
	require.Equal(t, http.StatusNotFound, code)
	require.Contains(t, string(body), "--collector.profile")
	_, _, err := hotspots.Fetch(context.Background(), srv.Client(), srv.URL, 1)
	require.ErrorContains(t, err, "404 Not Found: the profile collector is off")
}

func TestProfileOptionsRefused(t *testing.T) {
	for _, arg := range []string{"--collector.profile.frequency=5000", "--collector.profile.top=101", "--collector.profile.process=a/b"} {
		parseFlags(t, arg)
		o := Options{}
		require.ErrorContains(t, o.Validate(), "--collector.profile.", arg)
	}
}

// parseFlags parses a command line of the collectors' flags as the
// exporter does, and parses an empty one (the defaults) after the test.
func parseFlags(t *testing.T, args ...string) {
	t.Helper()
	parse := func(args []string) error {
		app := kingpin.New("test", "")
		collector.RegisterFlags(app)
		_, err := app.Parse(args)
		return err
	}
	require.NoError(t, parse(args))
	t.Cleanup(func() { require.NoError(t, parse(nil)) })
}
