package exporterapp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestScrapeTimeout (issue 33 item 8): a scraper that says when it gives up
// (Prometheus's X-Prometheus-Scrape-Timeout-Seconds) bounds the scrape's
// collectors below that, so a hung device costs its own series and the
// scrape still arrives; without the header, or with nonsense in it, the
// flag's bound holds.
func TestScrapeTimeout(t *testing.T) {
	tests := []struct {
		flag   time.Duration
		header string
		want   time.Duration
	}{
		{9 * time.Second, "", 9 * time.Second},
		{9 * time.Second, "10", 9 * time.Second},
		{9 * time.Second, "5", 4500 * time.Millisecond},
		{9 * time.Second, "0.5", 250 * time.Millisecond}, // half, when the margin would eat it
		{0, "3", 2500 * time.Millisecond},                // no flag bound: the header's
		{0, "", 0},
		{9 * time.Second, "-1", 9 * time.Second},
		{9 * time.Second, "NaN", 9 * time.Second},
		{9 * time.Second, "+Inf", 9 * time.Second},
		{9 * time.Second, "1e300", 9 * time.Second},
		{9 * time.Second, "ten", 9 * time.Second},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, scrapeTimeout(tt.flag, tt.header), "flag %s, header %q", tt.flag, tt.header)
	}
}
