package exporterapp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/hostapi"
)

// TestHostEndpointAndInfoSeries: GET /api/v1/host describes this host and
// the configured data directory; it refuses to change anything; /metrics
// carries walab_build_info and walab_host_info with this kernel release.
func TestHostEndpointAndInfoSeries(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "walab.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("wa:\n  persist: false\nsim:\n  name: nvmesim9\n  capacity: 256MiB\n  scale: 1\n  tick: 0s\nhost:\n  data_dirs: ["+dir+"]\n"), 0o644))
	a, err := New(Options{TelemetryPath: "/metrics", ConfigFile: cfg, Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}, quiet())
	require.NoError(t, err)
	defer a.Close()
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()

	f, err := hostapi.Get(t.Context(), srv.Client(), srv.URL)
	require.NoError(t, err)
	host, _ := os.Hostname()
	kernel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	require.NoError(t, err)
	require.Equal(t, host, f.Hostname)
	require.Equal(t, strings.TrimSpace(string(kernel)), f.Kernel)
	m, err := f.MountOf(dir)
	require.NoError(t, err)
	require.NotNil(t, m.Fill)

	resp, err := srv.Client().Post(srv.URL+hostapi.Path, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	resp, err = srv.Client().Get(srv.URL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	body := string(raw)
	require.Contains(t, body, `walab_build_info{goversion=`)
	require.Contains(t, body, `kernel="`+strings.TrimSpace(string(kernel))+`"`)
	require.Contains(t, body, `walab_host_mount_fill_ratio{data_dir="`+dir+`"`)
}
