package wa

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// benchReader serves 24 devices whose counters grow on every read, without
// allocating, so the benchmark measures the sampler.
type benchReader struct{ m map[string]Counters }

func newBenchReader(n int) *benchReader {
	r := &benchReader{m: make(map[string]Counters, n)}
	for i := range n {
		r.m[fmt.Sprintf("nvme%d", i)] = Counters{HostBytes: 1 << 40, MediaBytes: 1 << 41, Source: "ocp_c0", OK: true}
	}
	return r
}

func (r *benchReader) ReadCounters(context.Context) (map[string]Counters, error) {
	for k, c := range r.m {
		c.HostBytes += 100 * mib
		c.MediaBytes += 230 * mib
		r.m[k] = c
	}
	return r.m, nil
}

// fullSampler has 24 devices with a full 24h ring each.
func fullSampler(b *testing.B, statePath string) (*Sampler, time.Time) {
	s, err := New(Options{Reader: newBenchReader(24), StatePath: statePath, PersistEvery: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	now := t0
	for range s.Capacity() {
		now = now.Add(time.Minute)
		if err := s.Sample(context.Background(), now); err != nil {
			b.Fatal(err)
		}
	}
	return s, now
}

func BenchmarkSample24Devices(b *testing.B) {
	s, now := fullSampler(b, "")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		now = now.Add(time.Minute)
		if err := s.Sample(ctx, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshot24Devices(b *testing.B) {
	s, _ := fullSampler(b, "")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if len(s.Snapshot()) != 24 {
			b.Fatal("wrong device count")
		}
	}
}

// BenchmarkStateWrite24Devices is one full state-file save: 24 devices x
// 1441 samples, encoded, written, fsynced, renamed, directory fsynced.
func BenchmarkStateWrite24Devices(b *testing.B) {
	s, _ := fullSampler(b, filepath.Join(b.TempDir(), "wa.state"))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.buf)), "bytes/file")
}

func BenchmarkEncodeState24Devices(b *testing.B) {
	s, _ := fullSampler(b, "")
	st := s.stateLocked(0)
	var buf []byte
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf = encodeState(buf[:0], st)
	}
}
