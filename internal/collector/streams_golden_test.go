package collector

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/walab/walab/internal/golden"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/config"
)

// hostRunner adapts one Collector to a registry so tests see exactly what a
// scrape exposes, and keeps Update's error.
type hostRunner struct {
	c   Collector
	err error
}

func (r *hostRunner) Describe(chan<- *prometheus.Desc) {}
func (r *hostRunner) Collect(ch chan<- prometheus.Metric) {
	r.err = r.c.Update(context.Background(), ch)
}

// hostScrape runs one Update and returns the exposition text and the error.
func hostScrape(t testing.TB, c Collector) (string, error) {
	t.Helper()
	r := &hostRunner{c: c}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(r)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		require.NoError(t, enc.Encode(mf))
	}
	return buf.String(), r.err
}

// hostSeries counts the samples of one scrape.
func hostSeries(t testing.TB, c Collector) int {
	t.Helper()
	ch := make(chan prometheus.Metric, 1024)
	done := make(chan int)
	go func() {
		n := 0
		for range ch {
			n++
		}
		done <- n
	}()
	err := c.Update(context.Background(), ch)
	close(ch)
	n := <-done
	require.NoError(t, err)
	return n
}

// hostGolden compares got with testdata/<name>, or rewrites it under -update.
func hostGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), []byte(got))
}

// hostConfig parses a YAML config for a collector factory.
func hostConfig(t testing.TB, yml string) *config.File {
	t.Helper()
	f, err := config.Parse([]byte(yml))
	require.NoError(t, err)
	return f
}

// hostCPUTime is this process's user+system CPU time. The build box is
// shared and loaded, so benchmarks also report CPU time per op, which wall
// time (ns/op) inflates by however many other jobs share the cores.
func hostCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// hostBench runs op in a b.Loop and adds a cpu-ns/op metric.
func hostBench(b *testing.B, op func()) {
	b.ReportAllocs()
	start := hostCPUTime()
	n := 0
	for b.Loop() {
		op()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(hostCPUTime()-start)/float64(n), "cpu-ns/op")
	}
}

// TestHostDocsExampleConfig keeps the example in docs/collectors-host.md
// honest: its first YAML block must configure all three collectors.
func TestHostDocsExampleConfig(t *testing.T) {
	b, err := os.ReadFile("../../docs/collectors-host.md")
	require.NoError(t, err)
	_, rest, ok := bytes.Cut(b, []byte("```yaml\n"))
	require.True(t, ok, "no yaml block")
	block, _, ok := bytes.Cut(rest, []byte("```"))
	require.True(t, ok)
	cfg, err := config.Parse(block)
	require.NoError(t, err)
	for name, f := range map[string]Factory{"streams": newStreamsCollector, "irq": newIRQCollector, "filesystem": newFilesystemCollector} {
		require.True(t, cfg.Has(name), name)
		_, err := f(Env{Config: cfg})
		require.NoError(t, err, name)
	}
}
