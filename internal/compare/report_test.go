package compare_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/compare/comparetest"
	"github.com/walab/walab/internal/golden"
)

// checkReport parses an HTML report: it is HTML, its chart decodes as a
// PNG of the chart's size that is not blank, and it carries the verdict
// line, the checks and the text tables.
func checkReport(t *testing.T, res *compare.Result, allowInvalid bool) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, res.WriteHTML(&b, allowInvalid))
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	var src string
	var text strings.Builder // the page's text, unescaped
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			text.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.Data == "img" {
			for _, a := range n.Attr {
				if a.Key == "src" {
					src = a.Val
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	data, ok := strings.CutPrefix(src, "data:image/png;base64,")
	require.True(t, ok, "the chart is embedded")
	raw, err := base64.StdEncoding.DecodeString(data)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	require.Greater(t, img.Bounds().Dx(), 400)
	colors := map[uint32]bool{}
	for x := 0; x < img.Bounds().Dx(); x += 7 {
		for y := 0; y < img.Bounds().Dy(); y += 7 {
			r, g, bb, _ := img.At(x, y).RGBA()
			colors[r<<16^g<<8^bb] = true
		}
	}
	require.Greater(t, len(colors), 3, "the chart is not blank")
	out := text.String()
	require.Contains(t, out, res.Verdict.Headline(res))
	for _, c := range res.Verdict.Checks {
		require.Contains(t, out, c.Name)
		require.Contains(t, out, c.Detail)
	}
	if dir := os.Getenv("WALAB_REPORT_DIR"); dir != "" { // to look at it in a browser
		require.NoError(t, os.WriteFile(filepath.Join(dir, t.Name()+".html"), b.Bytes(), 0o644))
	}
	require.Contains(t, b.String(), `class="verdict `)
	return b.String() + out
}

// requireRow finds the performance table's row name and checks its
// figures, whatever the column widths.
func requireRow(t *testing.T, out, name string, fields ...string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, name+"  "); ok {
			require.Equal(t, fields, strings.Fields(rest), "row %q", name)
			return
		}
	}
	require.Failf(t, "no row", "%q in\n%s", name, out)
}

// TestChartWithThroughput: runs with loadgen's counters get a panel with
// committed transactions per second over the compared rounds (the
// candidate's +10% here) and one with the p95 latency per round (half of
// the candidate's transactions are twice as slow), under the WA panel; the
// text prints the same figures, their change and its 95% interval.
func TestChartWithThroughput(t *testing.T) {
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Hour).UTC()
	runs := []comparetest.Run{
		{ID: "b", Scenario: "baseline", Start: t0, WA: comparetest.RepeatWA(2.5, 8), TxnPerMin: 600},
		{ID: "c", Scenario: "streams", Start: t0.Add(10 * time.Hour), WA: comparetest.RepeatWA(2.2, 8), TxnPerMin: 660, SlowShare: 0.5},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b", Candidate: "c", Device: "nvme0",
		LastHours: 6, From: t0.Add(-time.Hour), To: time.Now(), Checks: compare.CheckOptions{Placement: "off"}})
	require.NoError(t, err)
	var text bytes.Buffer
	require.NoError(t, res.Write(&text, true))
	require.Contains(t, text.String(), "throughput +10.0% (no interval: one run each: give the plan `cycles: 3` for an interval)")
	requireRow(t, text.String(), "transactions/s", "10.00", "11.00", "+10.0%")
	requireRow(t, text.String(), "New-Orders/s (tpmC/60)", "10.00", "11.00", "+10.0%")
	requireRow(t, text.String(), "latency p95 (ms)", "19.50", "38.00", "+94.9%")
	requireRow(t, text.String(), "latency p99 (ms)", "19.90", "39.60", "+99.0%")
	require.InDelta(t, 38.0/19.5-1, res.Verdict.P95.Est, 1e-9)
	s := res.ChartSeries()
	require.InDelta(t, 10, s[0].Throughput[5], 1e-9, "600 a minute")
	require.InDelta(t, 11, s[1].Throughput[5], 1e-9)
	require.InDelta(t, 19.5, s[0].P95[5], 1e-9, "ms")
	require.InDelta(t, 38, s[1].P95[5], 1e-9)
	var b bytes.Buffer
	require.NoError(t, compare.WritePNG(&b, s))
	img, err := png.Decode(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	require.Equal(t, 900, img.Bounds().Dx())
	require.Equal(t, 450+2*260, img.Bounds().Dy(), "the WA panel, the throughput panel and the latency panel")
	if dir := os.Getenv("WALAB_REPORT_DIR"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "throughput.png"), b.Bytes(), 0o644))
	}
	checkReport(t, res, false)
}

// TestCompareGolden: the whole terminal output and the JSON of one
// comparison with every kind of figure (placement observed, settings, block
// view, loadgen throughput and latency, offered load), on runs at fixed
// times, against committed files (-update rewrites them).
func TestCompareGolden(t *testing.T) {
	t0 := time.Date(2026, 9, 21, 13, 0, 0, 0, time.UTC)
	on, off := 0.98, 0.0
	set := map[string]float64{"innodb_io_capacity": 2000}
	runs := []comparetest.Run{
		{ID: "b", Scenario: "baseline", Start: t0, WA: []float64{1.5, 2.0, 2.4, 2.5, 2.5, 2.6, 2.5, 2.4, 2.5, 2.5},
			Placed: &off, Settings: set, Block: true, TxnPerMin: 600, Terminals: 4},
		{ID: "c", Scenario: "streams", Start: t0.Add(12 * time.Hour), WA: []float64{1.4, 1.9, 2.2, 2.2, 2.1, 2.2, 2.3, 2.2, 2.2, 2.1},
			Placed: &on, Settings: set, Block: true, TxnPerMin: 660, SlowShare: 0.1, Terminals: 4},
	}
	papi := comparetest.StartPrometheus(t, runs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := compare.Compare(ctx, compare.Source{API: papi}, compare.Options{Baseline: "b", Candidate: "c", Device: "nvme0",
		LastHours: 6, From: t0.Add(-time.Hour), To: t0.Add(48 * time.Hour)})
	require.NoError(t, err)
	var text, js bytes.Buffer
	require.NoError(t, res.Write(&text, false))
	require.NoError(t, res.WriteJSON(&js))
	golden.Assert(t, filepath.Join("testdata", "compare.txt"), text.Bytes())
	golden.Assert(t, filepath.Join("testdata", "compare.json"), js.Bytes())
}
