package exporterapp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
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

// TestHostEndpointBounded: issue 42 item 1. Forty clients asking at once
// while a read is slow get one read between them (the rest wait for it or,
// beyond hostMaxWaiting, are refused with 503), and the answer serves the
// requests of the next hostCacheTTL without a new read.
func TestHostEndpointBounded(t *testing.T) {
	var reads atomic.Int64
	release := make(chan struct{})
	h := newHostEndpoint(func(context.Context) hostapi.Facts {
		reads.Add(1)
		<-release
		return hostapi.Facts{Hostname: "db1"}
	}, quiet())
	now := time.Unix(1e9, 0)
	h.now = func() time.Time { return now }
	srv := httptest.NewServer(h)
	defer srv.Close()

	const clients = 40
	codes := make(chan int, clients)
	for range clients {
		go func() {
			resp, err := srv.Client().Get(srv.URL + hostapi.Path)
			if err != nil {
				codes <- 0
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	// Those beyond the waiting bound are refused at once; then release.
	count := map[int]int{}
	for range clients - hostMaxWaiting {
		count[<-codes]++
	}
	require.Equal(t, map[int]int{http.StatusServiceUnavailable: clients - hostMaxWaiting}, count)
	close(release)
	for range hostMaxWaiting {
		count[<-codes]++
	}
	require.Equal(t, hostMaxWaiting, count[http.StatusOK])
	require.Equal(t, int64(1), reads.Load())

	for range 100 { // within the TTL: the cached answer
		f, err := hostapi.Get(t.Context(), srv.Client(), srv.URL)
		require.NoError(t, err)
		require.Equal(t, "db1", f.Hostname)
	}
	require.Equal(t, int64(1), reads.Load())
	now = now.Add(hostCacheTTL)
	_, err := hostapi.Get(t.Context(), srv.Client(), srv.URL)
	require.NoError(t, err)
	require.Equal(t, int64(2), reads.Load(), "a stale answer is read again")
}

// TestReadsCheckHostOnLoopback (issue 42, low): listening on loopback only,
// the exporter refuses reads (/metrics, /api/v1/host, the landing page)
// whose Host is not loopback or a configured host — a DNS-rebinding page —
// and serves loopback names; on a wildcard address it serves any Host, as
// Prometheus may know it by any name.
func TestReadsCheckHostOnLoopback(t *testing.T) {
	for _, tc := range []struct {
		listen string
		evil   int
	}{{"127.0.0.1:10131", http.StatusForbidden}, {"[::1]:10131", http.StatusForbidden}, {":10131", http.StatusOK}, {"192.0.2.1:10131", http.StatusOK}} {
		addrs := []string{tc.listen}
		a, err := New(Options{TelemetryPath: "/metrics", Web: &web.FlagConfig{WebListenAddresses: &addrs}, MutationHosts: []string{"db1.lab"},
			Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}, quiet())
		require.NoError(t, err)
		for _, path := range []string{"/metrics", hostapi.Path, "/"} {
			for host, want := range map[string]int{"evil.example:10131": tc.evil, "127.0.0.1:10131": http.StatusOK, "db1.lab:10131": http.StatusOK} {
				req := httptest.NewRequest(http.MethodGet, path, nil)
				req.Host = host
				rec := httptest.NewRecorder()
				a.Handler().ServeHTTP(rec, req)
				require.Equal(t, want, rec.Code, "listen %s, GET %s, Host %s", tc.listen, path, host)
			}
		}
		a.Close()
	}
}
