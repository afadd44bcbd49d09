package testenv

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// WaitMetric polls base/metrics until series (a name, or a name with one
// label: name{label="value"}) has a gauge or counter value that ok accepts,
// and returns it; the test fails after within.
func WaitMetric(t testing.TB, base, series string, within time.Duration, ok func(float64) bool) float64 {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if v, found := ScrapeValue(base, series); found && ok(v) {
			return v
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s at %s: no acceptable value within %s", series, base, within)
	return 0
}

// ScrapeValue is series' value in one scrape of base/metrics.
func ScrapeValue(base, series string) (float64, bool) {
	name, label, _ := strings.Cut(strings.TrimSuffix(series, "}"), "{")
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	families, err := parseMetrics(resp.Body)
	if err != nil || families[name] == nil {
		return 0, false
	}
	for _, m := range families[name].Metric {
		if label != "" && !hasLabel(m, label) {
			continue
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		}
	}
	return 0, false
}

// parseMetrics reads an exposition in the text format.
func parseMetrics(r io.Reader) (map[string]*dto.MetricFamily, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(r)
}

// counterSum is the sum of a family's counter values over its series (0
// without the family).
func counterSum(f *dto.MetricFamily) float64 {
	var sum float64
	for _, m := range f.GetMetric() {
		sum += m.GetCounter().GetValue()
	}
	return sum
}

// hasLabel: the metric carries label, written name="value".
func hasLabel(m *dto.Metric, label string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName()+"="+strconv.Quote(l.GetValue()) == label {
			return true
		}
	}
	return false
}
