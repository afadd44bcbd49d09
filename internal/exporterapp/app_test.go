package exporterapp

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/apiguard"
	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/sim"
	"github.com/walab/walab/internal/simload"
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestOpenFleetBadConfig(t *testing.T) {
	f, err := config.Parse([]byte("nvme:\n  devices:\n    nvme0: {source: nonsense}\n"))
	require.NoError(t, err)
	_, _, err = OpenFleet(Options{ReplayDir: t.TempDir()}, f, quiet())
	require.ErrorContains(t, err, "nvme.devices.nvme0.source")
	f, err = config.Parse([]byte("nvme:\n  source: magic\n"))
	require.NoError(t, err)
	_, _, err = OpenFleet(Options{ReplayDir: t.TempDir()}, f, quiet())
	require.ErrorContains(t, err, `unknown source "magic"`, "config errors surface at start-up")
}

// TestCaptureFromSimulator: with no controller anywhere, Capture captures
// the simulated drive Options.Simulator builds, and the capture replays to
// the same NAND source.
func TestCaptureFromSimulator(t *testing.T) {
	built := 0
	o := Options{
		Paths: collector.Paths{SysFS: t.TempDir(), DevFS: t.TempDir()},
		Simulator: func(*config.File, *slog.Logger) (*sim.Drive, error) {
			built++
			return sim.New(sim.Config{
				Name: "nvme0", Capacity: 256 << 20, Scale: 1, SpareFactor: 0.1, BlockPages: 64, Rate: 64 << 20, Seed: 3,
				Workload: simload.Spec{Mix: simload.MySQLMix{BinlogRetainSpace: 0.05}},
			})
		},
	}
	out := t.TempDir()
	require.NoError(t, Capture(context.Background(), o, quiet(), "", out))
	require.Equal(t, 1, built)
	for _, f := range []string{"id-ctrl.bin", "id-ns-1.bin", "log-02.bin", "log-c0.bin"} {
		_, err := os.Stat(filepath.Join(out, "nvme0", f))
		require.NoError(t, err, f)
	}

	fl, sims, err := OpenFleet(Options{ReplayDir: out}, config.Empty(), quiet())
	require.NoError(t, err)
	defer fl.Close()
	require.Empty(t, sims, "a replay directory is not the simulator")
	s, err := fl.Controllers[0].Poller.Sample(context.Background())
	require.NoError(t, err)
	require.Equal(t, probe.SourceOCP, s.Source)
	require.NotNil(t, s.MediaBytes)
}

// TestNewOnTheSimulator: New on a host without NVMe serves the simulated
// drive, marks it as a placed writer for the collectors, mounts its
// placement switch, and Close releases it.
func TestNewOnTheSimulator(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "walab.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("wa:\n  persist: false\nsim:\n  name: nvmesim9\n  capacity: 256MiB\n  scale: 1\n  tick: 0s\n"), 0o644))
	a, err := New(Options{TelemetryPath: "/metrics", ConfigFile: cfg, Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}, quiet())
	require.NoError(t, err)
	defer a.Close()
	require.Len(t, a.Fleet().Controllers, 1)
	require.Equal(t, "nvmesim9", a.Fleet().Controllers[0].Name)
	require.True(t, a.Fleet().Controllers[0].Simulated)
	require.Len(t, a.sims, 1)
	require.NotNil(t, a.Sampler())
	mfs, err := a.Registry().Gather()
	require.NoError(t, err)
	require.NotEmpty(t, mfs)
}

// TestNoSimSectionServesNoDrive: on a host without an NVMe controller and
// with a configuration that names no sim: section (the package's
// /etc/walab/exporter.yml), the exporter serves no drive, says so in its
// log, and walab_nvme_controllers says 0: no invented nvmesim0 with WA
// series. Before, the simulated drive stood in for the missing hardware.
func TestNoSimSectionServesNoDrive(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "walab.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("wa:\n  persist: false\n"), 0o644))
	var logs bytes.Buffer
	a, err := New(Options{TelemetryPath: "/metrics", ConfigFile: cfg, Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}},
		slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, err)
	defer a.Close()
	require.Empty(t, a.Fleet().Controllers)
	require.Empty(t, a.sims)
	require.Contains(t, logs.String(), "no NVMe controller found and no sim: section")
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	require.Regexp(t, `(?m)^walab_nvme_controllers 0$`, body)
	require.NotContains(t, body, "walab_nvme_info")
	require.NotContains(t, body, "nvmesim")
}

// TestMutationsNeedTheToken: with a token file, POST /api/v1/sim/precondition
// and run-start are refused (403) without the file's token and served with
// it. Before, any local user could post them.
func TestMutationsNeedTheToken(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "walab.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("wa:\n  persist: false\nsim:\n  name: nvmesim9\n  capacity: 256MiB\n  scale: 1\n  tick: 0s\n"), 0o644))
	tokenFile := filepath.Join(dir, "exporter.token")
	a, err := New(Options{TelemetryPath: "/metrics", ConfigFile: cfg, EnableMutations: true, MutationsTokenFile: tokenFile,
		Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}, quiet())
	require.NoError(t, err)
	defer a.Close()
	b, err := os.ReadFile(tokenFile)
	require.NoError(t, err)
	for _, path := range []string{sim.PreconditionPath, "/api/v1/run-start"} {
		post := func(token string) int {
			req := httptest.NewRequest("POST", "http://127.0.0.1"+path, nil)
			req.Header.Set(apiguard.Header, apiguard.HeaderValue)
			if token != "" {
				req.Header.Set(apiguard.TokenHeader, token)
			}
			rec := httptest.NewRecorder()
			a.Handler().ServeHTTP(rec, req)
			return rec.Code
		}
		require.Equal(t, 403, post(""), path)
		require.Less(t, post(strings.TrimSpace(string(b))), 300, path)
	}
	require.ErrorContains(t, (&Options{MutationsTokenFile: tokenFile}).Validate(), "needs --web.enable-mutations")
}
