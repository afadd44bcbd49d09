// Package apiguard puts walab's state-changing HTTP endpoints (the WA
// run-start mark, the simulator's placement switch) behind the checks a
// service reachable from a browser needs: off unless enabled, POST only
// with a header a cross-origin HTML form cannot send, a Host header that
// names loopback or a configured host (DNS rebinding), and a rate limit
// per client.
// Reads (GET, HEAD) pass through untouched. Authentication and TLS stay
// with the exporter-toolkit web config, which wraps every endpoint.
package apiguard

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Header must be present with value HeaderValue on every mutating request.
// A custom header makes the request "non-simple": a browser sends it
// cross-origin only after a CORS preflight, which walab never grants, so a
// page on another site cannot trigger a run mark or a placement switch.
const (
	Header      = "X-Walab-Request"
	HeaderValue = "1"
)

// EnableFlag is the exporter flag that turns mutations on, HostFlag the
// one that adds allowed Host values (named in errors).
const (
	EnableFlag = "--web.enable-mutations"
	HostFlag   = "--web.mutations-host"
)

// Options configure a Guard.
type Options struct {
	Enabled bool
	// Hosts are the Host header values (names or addresses, without port)
	// a mutating request may carry besides loopback ones (localhost,
	// 127.0.0.0/8, ::1): DNS rebinding makes a hostile page same-origin,
	// but its requests still name the hostile host.
	Hosts []string
	// Rate and Burst bound each client's mutating requests across all
	// guarded endpoints (a token bucket per remote address). Zero Rate means
	// DefaultRate; Burst 0 means DefaultBurst.
	Rate  rate.Limit
	Burst int
	// Token, when set, must come in TokenHeader on every mutating request
	// (the exporter's token file, WriteTokenFile).
	Token string
}

// Defaults: a run mark or a placement switch is a human- or script-paced
// event (a few per run), so one per second with a burst of 10 is generous;
// each costs two fsyncs of the WA state.
const (
	DefaultRate  rate.Limit = 1
	DefaultBurst            = 10
)

// maxClients bounds the per-client buckets kept; beyond it the buckets
// that are full again (idle clients) are dropped, and if none is, all are.
const maxClients = 1024

// Guard wraps mutating endpoints. One Guard's buckets are shared by every
// handler it wraps.
type Guard struct {
	enabled bool
	hosts   map[string]bool
	rate    rate.Limit
	burst   int
	token   string

	mu      sync.Mutex
	buckets map[string]*rate.Limiter // by client address
}

// New returns a Guard.
func New(o Options) *Guard {
	if o.Rate == 0 {
		o.Rate = DefaultRate
	}
	if o.Burst == 0 {
		o.Burst = DefaultBurst
	}
	g := &Guard{enabled: o.Enabled, hosts: map[string]bool{}, rate: o.Rate, burst: o.Burst, token: o.Token, buckets: map[string]*rate.Limiter{}}
	for _, h := range o.Hosts {
		g.hosts[normalHost(h)] = true
	}
	return g
}

// hostAllowed reports whether a Host header names loopback or a
// configured host.
func (g *Guard) hostAllowed(hostHeader string) bool {
	h := hostHeader
	if host, _, err := net.SplitHostPort(hostHeader); err == nil {
		h = host
	}
	h = normalHost(h)
	if h == "" {
		return false
	}
	if h == "localhost" || g.hosts[h] {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// normalHost is a host name as compared: lower case, no brackets, no
// trailing dot.
func normalHost(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// clientOf is the client a remote address counts as: its host, except
// that every loopback address is one client (the machine itself: a
// process may bind any of 127.0.0.0/8) and an IPv6 address counts by its
// /64 (one host's privacy addresses), so rotating the source address does
// not buy a new bucket.
func clientOf(remote string) string {
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return host
	case ip.IsLoopback():
		return "loopback"
	case ip.To4() == nil:
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// bucket is the client's token bucket (see clientOf).
func (g *Guard) bucket(remote string) *rate.Limiter {
	client := clientOf(remote)
	g.mu.Lock()
	defer g.mu.Unlock()
	if b := g.buckets[client]; b != nil {
		return b
	}
	if len(g.buckets) >= maxClients {
		for k, b := range g.buckets {
			if b.Tokens() >= float64(g.burst) {
				delete(g.buckets, k)
			}
		}
		if len(g.buckets) >= maxClients {
			clear(g.buckets)
		}
	}
	b := rate.NewLimiter(g.rate, g.burst)
	g.buckets[client] = b
	return b
}

// clients is how many buckets are kept (tests).
func (g *Guard) clients() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.buckets)
}

// Wrap guards h: GET and HEAD reach it as they are; anything else must pass
// the checks first. Methods other than POST reach h when allowed, so h
// still answers 405 with its Allow header.
func (g *Guard) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			h.ServeHTTP(w, r)
			return
		}
		if !g.enabled {
			refuse(w, http.StatusForbidden, fmt.Sprintf("state-changing requests are disabled; start the exporter with %s to allow them", EnableFlag))
			return
		}
		if !g.hostAllowed(r.Host) {
			refuse(w, http.StatusForbidden, fmt.Sprintf("Host %q is neither loopback nor a configured host (%s); refused against DNS rebinding", r.Host, HostFlag))
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			refuse(w, http.StatusForbidden, "cross-site request refused")
			return
		}
		if r.Header.Get(Header) != HeaderValue {
			refuse(w, http.StatusForbidden, fmt.Sprintf("missing header %s: %s (required on state-changing requests, so that a cross-origin form cannot send one)", Header, HeaderValue))
			return
		}
		if !g.tokenOK(r.Header) {
			refuse(w, http.StatusForbidden, fmt.Sprintf("missing or wrong header %s: state-changing requests need the token in the exporter's token file (%s), which its user alone can read", TokenHeader, TokenFileFlag))
			return
		}
		if res := g.bucket(r.RemoteAddr).Reserve(); !res.OK() || res.Delay() > 0 {
			d := res.Delay()
			res.Cancel()
			w.Header().Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
			refuse(w, http.StatusTooManyRequests, fmt.Sprintf("too many state-changing requests; retry in %s", d.Round(time.Millisecond)))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// CheckHost refuses every request, reads included, whose Host names
// neither loopback nor a configured host. The exporter puts it in front of
// everything when it listens on loopback only: then its only readers from
// elsewhere are browser pages, and a DNS-rebinding page would read the host
// facts (mysqld PIDs, mounts) and metrics under its own name.
func (g *Guard) CheckHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r.Host) {
			refuse(w, http.StatusForbidden, fmt.Sprintf("Host %q is neither loopback nor a configured host (%s); refused against DNS rebinding, as the exporter listens on loopback only", r.Host, HostFlag))
			return
		}
		h.ServeHTTP(w, r)
	})
}

func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(struct {
		Error string `json:"error"`
	}{msg})
}

// NewPost is a state-changing request a Guard lets through (when enabled):
// a POST to url with the required header.
func NewPost(url string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set(Header, HeaderValue)
	return req, nil
}
