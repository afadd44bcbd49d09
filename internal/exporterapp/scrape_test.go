package exporterapp

import (
	"testing"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
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

// TestOptionsValidate (issue 33, low): negative durations and a negative
// request limit are refused, naming the flag.
func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		flag string
	}{
		{Options{CacheMaxAge: -time.Second}, "--nvme.cache-max-age"},
		{Options{ScrapeTimeout: -time.Second}, "--scrape.timeout"},
		{Options{ReadTimeout: -time.Second}, "--nvme.read-timeout"},
		{Options{MaxRequests: -1}, "--web.max-requests"},
		// Issue 42, low: values no Host header can match.
		{Options{MutationHosts: []string{""}}, "--web.mutations-host"},
		{Options{MutationHosts: []string{"db1.lab", " "}}, "--web.mutations-host"},
		{Options{MutationHosts: []string{"db1.lab:10131"}}, "without a port"},
		{Options{MutationHosts: []string{"http://db1.lab"}}, "--web.mutations-host"},
	} {
		require.ErrorContains(t, tc.o.Validate(), tc.flag)
		_, err := New(tc.o, quiet())
		require.ErrorContains(t, err, tc.flag)
	}
	require.NoError(t, (&Options{ScrapeTimeout: 9 * time.Second, CacheMaxAge: 5 * time.Second}).Validate())
	require.NoError(t, (&Options{MutationHosts: []string{"db1.lab", "10.1.2.3", "::1", "[fe80::1]"}}).Validate())
}

func TestMutationHosts(t *testing.T) {
	addrs := []string{":10131", "0.0.0.0:1", "[::]:2", "192.0.2.5:10131", "lab.example.org:10131"}
	o := Options{MutationHosts: []string{"walab.internal"}, Web: &web.FlagConfig{WebListenAddresses: &addrs}}
	require.Equal(t, []string{"walab.internal", "192.0.2.5", "lab.example.org"}, o.mutationHosts())
}
