package apiguard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// server serves a counting handler behind a guard over real HTTP.
func server(t *testing.T, o Options) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	g := New(o)
	srv := httptest.NewServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			n.Add(1)
		}
		io.WriteString(w, "ok")
	})))
	t.Cleanup(srv.Close)
	return srv, &n
}

func do(t *testing.T, method, u string, hdr map[string]string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestDisabledByDefault(t *testing.T) {
	srv, n := server(t, Options{})
	code, body := do(t, http.MethodGet, srv.URL, nil, nil)
	require.Equal(t, http.StatusOK, code, "reads pass")
	require.Equal(t, "ok", body)
	code, body = do(t, http.MethodPost, srv.URL, map[string]string{Header: HeaderValue}, nil)
	require.Equal(t, http.StatusForbidden, code)
	require.Contains(t, body, EnableFlag)
	require.Zero(t, n.Load())
}

// TestCrossOriginFormRefused: what a page on another site can make a
// browser send — a form POST, urlencoded, with an Origin and Sec-Fetch-Site
// cross-site, and no custom header — never reaches the handler.
func TestCrossOriginFormRefused(t *testing.T) {
	srv, n := server(t, Options{Enabled: true})
	form := url.Values{"streams": {"off"}}.Encode()
	code, body := do(t, http.MethodPost, srv.URL+"?streams=off", map[string]string{
		"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://evil.example",
	}, strings.NewReader(form))
	require.Equal(t, http.StatusForbidden, code)
	require.Contains(t, body, "missing header "+Header)
	code, _ = do(t, http.MethodPost, srv.URL, map[string]string{Header: HeaderValue, "Sec-Fetch-Site": "cross-site"}, nil)
	require.Equal(t, http.StatusForbidden, code, "a browser saying cross-site is refused even with the header")
	require.Zero(t, n.Load())

	code, body = do(t, http.MethodPost, srv.URL, map[string]string{Header: HeaderValue}, nil)
	require.Equal(t, http.StatusOK, code, body)
	require.EqualValues(t, 1, n.Load())
}

// TestFloodIsLimited: a burst beyond the bucket is refused with 429 and a
// Retry-After; the refused requests never reach the handler.
func TestFloodIsLimited(t *testing.T) {
	srv, n := server(t, Options{Enabled: true, Rate: 0.001, Burst: 3})
	codes := map[int]int{}
	for range 20 {
		code, _ := do(t, http.MethodPost, srv.URL, map[string]string{Header: HeaderValue}, nil)
		codes[code]++
	}
	require.Equal(t, map[int]int{http.StatusOK: 3, http.StatusTooManyRequests: 17}, codes)
	require.EqualValues(t, 3, n.Load())
	req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
	req.Header.Set(Header, HeaderValue)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	code, _ := do(t, http.MethodGet, srv.URL, nil, nil)
	require.Equal(t, http.StatusOK, code, "reads are not rate-limited")
}

// TestDNSRebindingRefused (issue 33 item 11): a page on evil.example whose
// name was rebound to 127.0.0.1 is same-origin for the browser, so the
// custom header does not stop it; its requests carry Host: evil.example.
// Mutations accept only loopback names and the configured hosts.
func TestDNSRebindingRefused(t *testing.T) {
	g := New(Options{Enabled: true, Hosts: []string{"lab.example.org", "10.1.2.3"}})
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	for _, tc := range []struct {
		host string
		code int
	}{
		{"evil.example", http.StatusForbidden},
		{"evil.example:10131", http.StatusForbidden},
		{"127.0.0.1.evil.example", http.StatusForbidden},
		{"localhost.evil.example:10131", http.StatusForbidden},
		{"", http.StatusForbidden},
		{"127.0.0.1:10131", http.StatusOK},
		{"127.8.9.10", http.StatusOK},
		{"localhost:10131", http.StatusOK},
		{"LOCALHOST.", http.StatusOK},
		{"[::1]:10131", http.StatusOK},
		{"lab.example.org:10131", http.StatusOK},
		{"Lab.Example.Org", http.StatusOK},
		{"10.1.2.3:10131", http.StatusOK},
		{"10.1.2.4:10131", http.StatusForbidden},
	} {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/run-start", nil)
		req.Host = tc.host
		req.RemoteAddr = "127.0.0.1:5555"
		req.Header.Set(Header, HeaderValue)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, tc.code, rec.Code, "Host %q: %s", tc.host, rec.Body.String())
		if tc.code == http.StatusForbidden {
			require.Contains(t, rec.Body.String(), "Host")
		}
	}
	// Reads are not guarded.
	req := httptest.NewRequest(http.MethodGet, "/api/v1/run-start", nil)
	req.Host = "evil.example"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code)
}

// TestRateLimitIsPerClient (issue 33, low): one client's flood empties its
// own bucket, not another client's: a legitimate run-start still passes.
func TestRateLimitIsPerClient(t *testing.T) {
	g := New(Options{Enabled: true, Rate: 0.001, Burst: 2})
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	post := func(remote string) int {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/run-start", nil)
		req.Host = "127.0.0.1:10131"
		req.RemoteAddr = remote
		req.Header.Set(Header, HeaderValue)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for i := range 20 {
		code := post("10.0.0.66:" + strconv.Itoa(4000+i)) // the port changes, the client does not
		if i >= 2 {
			require.Equal(t, http.StatusTooManyRequests, code)
		}
	}
	require.Equal(t, http.StatusOK, post("10.0.0.7:5000"), "another client has its own bucket")
	// The bucket map is bounded: many clients never grow it without limit.
	for i := range 3 * maxClients {
		post("10.1." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256) + ":1")
	}
	require.LessOrEqual(t, g.clients(), maxClients)
}

// TestRotatingLoopbackIsOneClient (issue 42, low): every loopback address
// is the same machine, so rotating the source through 127.0.0.0/8 and ::1
// does not buy a new bucket; nor does rotating through one IPv6 /64 (one
// host's privacy addresses).
func TestRotatingLoopbackIsOneClient(t *testing.T) {
	g := New(Options{Enabled: true, Rate: 0.001, Burst: 2})
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	post := func(remote string) int {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/run-start", nil)
		req.Host = "127.0.0.1:10131"
		req.RemoteAddr = remote
		req.Header.Set(Header, HeaderValue)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	passed := 0
	for i := range 40 {
		remote := "127.0." + strconv.Itoa(i/250) + "." + strconv.Itoa(1+i%250) + ":5000"
		if i%3 == 0 {
			remote = "[::1]:5000"
		}
		if post(remote) == http.StatusOK {
			passed++
		}
	}
	require.Equal(t, 2, passed, "the burst, once, for all loopback addresses")
	passed = 0
	for i := range 40 {
		if post("[2001:db8:1:2::"+strconv.FormatInt(int64(i+1), 16)+"]:5000") == http.StatusOK {
			passed++
		}
	}
	require.Equal(t, 2, passed, "one /64")
	require.Equal(t, http.StatusOK, post("[2001:db8:1:3::1]:5000"), "another /64 is another client")
}

// TestCheckHostOnReads (issue 42, low): CheckHost refuses a read whose
// Host names neither loopback nor a configured host (a DNS-rebinding page
// reading the host facts), and lets the others through.
func TestCheckHostOnReads(t *testing.T) {
	g := New(Options{Hosts: []string{"db1.lab"}})
	h := g.CheckHost(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "facts") }))
	for host, want := range map[string]int{
		"evil.example": http.StatusForbidden, "evil.example:10131": http.StatusForbidden, "": http.StatusForbidden,
		"127.0.0.1:10131": http.StatusOK, "localhost": http.StatusOK, "[::1]:10131": http.StatusOK, "DB1.lab.:10131": http.StatusOK,
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
			req := httptest.NewRequest(method, "/api/v1/host", nil)
			req.Host = host
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			require.Equal(t, want, rec.Code, "%s Host %q: %s", method, host, rec.Body.String())
			if want == http.StatusForbidden {
				require.Contains(t, rec.Body.String(), "DNS rebinding")
				require.NotContains(t, rec.Body.String(), "facts")
			}
		}
	}
}
