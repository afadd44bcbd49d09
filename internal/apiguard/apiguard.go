// Package apiguard puts walab's state-changing HTTP endpoints (the WA
// run-start mark, the simulator's placement switch) behind the checks a
// service reachable from a browser needs: off unless enabled, POST only
// with a header a cross-origin HTML form cannot send, and a rate limit.
// Reads (GET, HEAD) pass through untouched. Authentication and TLS stay
// with the exporter-toolkit web config, which wraps every endpoint.
package apiguard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
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

// EnableFlag is the exporter flag that turns mutations on (named in errors).
const EnableFlag = "--web.enable-mutations"

// Options configure a Guard.
type Options struct {
	Enabled bool
	// Rate and Burst bound mutating requests across all guarded endpoints
	// (token bucket). Zero Rate means DefaultRate; Burst 0 means DefaultBurst.
	Rate  rate.Limit
	Burst int
}

// Defaults: a run mark or a placement switch is a human- or script-paced
// event (a few per run), so one per second with a burst of 10 is generous;
// each costs two fsyncs of the WA state.
const (
	DefaultRate  rate.Limit = 1
	DefaultBurst            = 10
)

// Guard wraps mutating endpoints. One Guard's limiter is shared by every
// handler it wraps.
type Guard struct {
	enabled bool
	limiter *rate.Limiter
}

// New returns a Guard.
func New(o Options) *Guard {
	if o.Rate == 0 {
		o.Rate = DefaultRate
	}
	if o.Burst == 0 {
		o.Burst = DefaultBurst
	}
	return &Guard{enabled: o.Enabled, limiter: rate.NewLimiter(o.Rate, o.Burst)}
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
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			refuse(w, http.StatusForbidden, "cross-site request refused")
			return
		}
		if r.Header.Get(Header) != HeaderValue {
			refuse(w, http.StatusForbidden, fmt.Sprintf("missing header %s: %s (required on state-changing requests, so that a cross-origin form cannot send one)", Header, HeaderValue))
			return
		}
		if res := g.limiter.Reserve(); !res.OK() || res.Delay() > 0 {
			d := res.Delay()
			res.Cancel()
			w.Header().Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
			refuse(w, http.StatusTooManyRequests, fmt.Sprintf("too many state-changing requests; retry in %s", d.Round(time.Millisecond)))
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
