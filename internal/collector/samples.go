package collector

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The host collectors export tens of thousands of series a scrape on a big
// machine (irq, cpu), so their samples avoid the per-sample garbage of
// prometheus.MustNewConstMetric (about a dozen allocations: label pairs,
// their strings, the metric, its value). The label pairs of a series are
// built once and reused while the series exists (client_golang treats label
// pairs as immutable and shares its own the same way), and samples come
// from blocks allocated a few hundred at a time. BenchmarkScrapeAll
// (exporter) measures the effect.

// seriesSample is one counter or gauge sample with prebuilt, sorted label pairs.
type seriesSample struct {
	desc    *prometheus.Desc
	labels  []*dto.LabelPair
	value   float64
	counter dto.Counter // set when the sample is a counter
	gauge   dto.Gauge   // set when it is a gauge
	isGauge bool
}

func (s *seriesSample) Desc() *prometheus.Desc { return s.desc }

func (s *seriesSample) Write(out *dto.Metric) error {
	out.Label = s.labels
	if s.isGauge {
		s.gauge.Value = &s.value
		out.Gauge = &s.gauge
	} else {
		s.counter.Value = &s.value
		out.Counter = &s.counter
	}
	return nil
}

// sampleBlock is the number of samples allocated at once.
const sampleBlock = 256

// samples hands out samples for one scrape. The zero value is ready.
type samples struct{ free []seriesSample }

func (p *samples) next(desc *prometheus.Desc, t prometheus.ValueType, v float64, labels []*dto.LabelPair) *seriesSample {
	if len(p.free) == 0 {
		p.free = make([]seriesSample, sampleBlock)
	}
	s := &p.free[0]
	p.free = p.free[1:]
	s.desc, s.labels, s.value, s.isGauge = desc, labels, v, t == prometheus.GaugeValue
	return s
}

// labelPair is one label pair; keep the result if it will be used again.
func labelPair(name, value string) *dto.LabelPair {
	return &dto.LabelPair{Name: &name, Value: &value}
}

// cpuLabel is the cpu="N" label pair of one CPU, shared by all its series.
type cpuLabel struct {
	id   int
	pair *dto.LabelPair
	only []*dto.LabelPair // the pair alone: the labels of a series with no other
}

// cpuPairs are the CPUs' label pairs by id.
type cpuPairs map[int]*cpuLabel

func (m cpuPairs) get(cpu int) *cpuLabel {
	l, ok := m[cpu]
	if !ok {
		p := labelPair("cpu", strconv.Itoa(cpu))
		l = &cpuLabel{id: cpu, pair: p, only: []*dto.LabelPair{p}}
		m[cpu] = l
	}
	return l
}

// bound forgets every pair when the map holds far more CPUs than the n a
// file lists now (ids that came and went): the map stays the size of the
// host, and the pairs still in use are simply built again.
func (m cpuPairs) bound(n int) {
	if len(m) > 2*n+64 {
		clear(m)
	}
}

// decimalOrder caches the order of a list of ids by their decimal text,
// which is how client_golang's Gather sorts label values: a family sent in
// that order is sorted in linear time instead of n log n comparisons of
// label pairs, and on a 256-CPU host the irq and cpu families are
// thousands of series.
type decimalOrder struct {
	ids   []int
	order []int
}

// of returns the indexes of ids ordered by the ids' decimal text; it is
// computed again only when ids differ from the last call's.
func (o *decimalOrder) of(ids []int) []int {
	if o.order != nil && slices.Equal(o.ids, ids) {
		return o.order
	}
	o.ids = slices.Clone(ids)
	o.order = make([]int, len(ids))
	for i := range o.order {
		o.order[i] = i
	}
	slices.SortStableFunc(o.order, func(a, b int) int { return cmpDecimal(ids[a], ids[b]) })
	return o.order
}

// cmpDecimal compares a and b as their decimal texts compare.
func cmpDecimal(a, b int) int {
	var x, y [24]byte
	return bytes.Compare(strconv.AppendInt(x[:0], int64(a), 10), strconv.AppendInt(y[:0], int64(b), 10))
}
