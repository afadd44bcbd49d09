package compare_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/compare/comparetest"
)

// partialProxy serves a real Prometheus and, for queries containing
// match, adds warning to the answer, as Thanos or a VictoriaMetrics
// cluster does when a store node did not answer.
func partialProxy(t *testing.T, promURL, match, warning string) v1.API {
	t.Helper()
	u, err := url.Parse(promURL)
	require.NoError(t, err)
	p := httputil.NewSingleHostReverseProxy(u)
	director := p.Director
	p.Director = func(r *http.Request) {
		director(r)
		r.Header.Del("Accept-Encoding")
	}
	p.ModifyResponse = func(resp *http.Response) error {
		if match == "" || !strings.Contains(resp.Request.Header.Get("X-Test-Query"), match) {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		doc["warnings"] = []string{warning}
		b, _ = json.Marshal(doc)
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	// The client POSTs its queries as a form: keep the query where
	// ModifyResponse sees it.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		form, _ := url.ParseQuery(string(body))
		r.Header.Set("X-Test-Query", form.Get("query")+r.URL.Query().Get("query"))
		p.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := api.NewClient(api.Config{Address: srv.URL})
	require.NoError(t, err)
	return v1.NewAPI(c)
}

// TestComparePartialResponse: a store that answers the NAND counter's
// query from part of its data, with a warning, makes the comparison NOT
// VALID with the warning as the reason; the same data without the
// warning is VALID.
func TestComparePartialResponse(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	runs := []comparetest.Run{
		{ID: "b1", Scenario: "baseline", Start: t0, WA: append([]float64{2, 2}, comparetest.RepeatWA(2.5, 12)...)},
		{ID: "c1", Scenario: "streams", Start: t0.Add(30 * time.Hour), WA: append([]float64{2, 2}, comparetest.RepeatWA(2.2, 12)...)},
	}
	prom := comparetest.StartPrometheusURL(t, runs)
	const warning = "partial response: store 10.0.0.7:10901 did not answer"
	for _, tc := range []struct {
		match string
		valid bool
	}{{"", true}, {"walab_nvme_media_written_bytes_total", false}} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := compare.Compare(ctx, compare.Source{API: partialProxy(t, prom, tc.match, warning)}, compare.Options{
			Baseline: "b1", Candidate: "c1", Device: "nvme0", From: t0.Add(-time.Hour), To: time.Now()})
		cancel()
		require.NoError(t, err)
		require.Equal(t, tc.valid, res.Verdict.Valid, "%+v", res.Verdict)
		if !tc.valid {
			require.Contains(t, strings.Join(res.Verdict.Reasons, "\n"), "complete answers: the store warned")
			require.Contains(t, strings.Join(res.Verdict.Reasons, "\n"), warning)
			var out bytes.Buffer
			require.NoError(t, res.Write(&out, false))
			require.NotContains(t, out.String(), "WA reduction")
		}
	}
}
