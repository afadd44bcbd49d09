package exporterapp

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/walab/walab/internal/collector"
)

// scrapeTimeoutHeader is where Prometheus says, in seconds, when it gives
// up on a scrape (its scrape_timeout).
const scrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// scrapeMargin is left of the scraper's timeout for encoding and sending.
const scrapeMargin = 500 * time.Millisecond

// scrapeTimeout bounds one scrape's collectors: the flag's bound (0: none),
// or less when the scraper's header says it gives up sooner — its timeout
// less scrapeMargin, but never less than half of it. A header that is not
// a positive, finite number of seconds is ignored.
func scrapeTimeout(flag time.Duration, header string) time.Duration {
	if header == "" {
		return flag
	}
	secs, err := strconv.ParseFloat(header, 64)
	if err != nil || !(secs > 0) || math.IsInf(secs, 0) || secs > 1e6 {
		return flag
	}
	t := time.Duration(secs * float64(time.Second))
	t = max(t-scrapeMargin, t/2)
	if flag > 0 && flag < t {
		return flag
	}
	return t
}

// metricsHandler serves the metrics with each scrape's collectors bounded
// by scrapeTimeout, and at most maxRequests scrapes at a time (0: no
// limit; 503 beyond, as promhttp answers).
type metricsHandler struct {
	set      *collector.Set
	self     prometheus.Gatherer // the exporter's own metrics; nil when disabled
	opts     promhttp.HandlerOpts
	flag     time.Duration
	inflight chan struct{}
}

func newMetricsHandler(set *collector.Set, self prometheus.Gatherer, opts promhttp.HandlerOpts, flag time.Duration, maxRequests int) *metricsHandler {
	h := &metricsHandler{set: set, self: self, opts: opts, flag: flag}
	if maxRequests > 0 {
		h.inflight = make(chan struct{}, maxRequests)
	}
	return h
}

func (h *metricsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.inflight != nil {
		select {
		case h.inflight <- struct{}{}:
			defer func() { <-h.inflight }()
		default:
			http.Error(w, fmt.Sprintf("Limit of concurrent requests reached (%d), try again later.", cap(h.inflight)), http.StatusServiceUnavailable)
			return
		}
	}
	view := *h.set // the same collectors, this scrape's bound
	view.Timeout = scrapeTimeout(h.flag, r.Header.Get(scrapeTimeoutHeader))
	reg := prometheus.NewRegistry()
	reg.MustRegister(&view)
	g := prometheus.Gatherers{reg}
	if h.self != nil {
		g = append(g, h.self)
	}
	promhttp.HandlerFor(g, h.opts).ServeHTTP(w, r)
}
