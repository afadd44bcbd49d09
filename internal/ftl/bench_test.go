package ftl

import (
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuTime is this process's user+system CPU time: on a shared, loaded box
// wall-clock rates understate what one core does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkUniformWrite measures simulated host page writes per second in
// steady state (each host write also pays for its share of GC copies).
func BenchmarkUniformWrite(b *testing.B) {
	for _, pol := range []Policy{Greedy, CostBenefit} {
		b.Run(pol.String(), func(b *testing.B) {
			cfg := Config{LogicalPages: 1 << 20, BlockPages: 256, PageSize: 4096, SpareFactor: 0.1, Streams: 1, Policy: pol}
			m, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			n := cfg.LogicalPages
			for l := uint32(0); l < n; l++ {
				_ = m.Write(l, 0)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			lpns := make([]uint32, 1<<16)
			for i := range lpns {
				lpns[i] = rng.Uint32N(n)
			}
			for i := 0; i < 2*int(n); i++ { // reach steady state
				_ = m.Write(lpns[i&(len(lpns)-1)]^uint32(i>>16)%n, 0)
			}
			before := m.Counters()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := m.Write((lpns[i&(len(lpns)-1)]+uint32(i>>16))%n, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cpu := (cpuTime() - cpu0).Seconds()
			after := m.Counters()
			nand := float64(after.NANDPages - before.NANDPages)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "host_pages/s")
			b.ReportMetric(float64(b.N)/cpu, "host_pages/cpu_s")
			b.ReportMetric(nand/cpu, "nand_pages/cpu_s")
			b.ReportMetric(nand/float64(after.HostPages-before.HostPages), "WA")
		})
	}
}

// BenchmarkModelMemory builds a 64 GiB drive at 16 KiB pages (4 Mi pages)
// and reports heap bytes per logical page; the model is linear in pages, so a
// 1 TiB drive (64 Mi pages) needs 16 times as much.
func BenchmarkModelMemory(b *testing.B) {
	const logical = 64 << 30 / (16 << 10)
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := New(Config{LogicalPages: logical, BlockPages: 256, PageSize: 16 << 10, SpareFactor: 0.07, Streams: 8})
		if err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		perPage := float64(after.HeapAlloc-before.HeapAlloc) / logical
		b.ReportMetric(perPage, "bytes/page")
		b.ReportMetric(perPage*float64(1<<40/(16<<10))/(1<<20), "MiB_per_TiB@16KiB")
		runtime.KeepAlive(m)
	}
}
