// Package collector: how many series the host collectors export at worst, derived (moved from docs/collectors-host.md), and what they cost.
//
// # Cardinality bound
//
// By default (`per_cpu: false`, for fleets) the interrupts of each device are
// one counter, `walab_irq_device_interrupts_total{device}`: the sum over the
// device's lines and CPUs. The per-line, per-CPU `walab_irq_interrupts_total`
// below, and the IRQ dashboard's per-CPU panel that reads it, need
// `per_cpu: true` (the lab's view). Without it the L × C term is D, and the
// irq collector's series are L × 3 + 3D + C × (T + 1) + 1 on every scrape:
// 3,408 on the generated host below, 5,460 on the ScrapeAll host.
//
// With `per_cpu: true`, let:
//
// - L = lines of interest,
// - C = online CPUs,
// - D = devices owning lines of interest,
// - T = softirq types (10 on current kernels).
//
// A line gets a per-CPU series only for the CPUs that have taken at least one of
// its interrupts (a count never returns to 0 before a reboot, so a series, once
// there, stays). NVMe queue interrupts are managed: each queue is delivered to
// one CPU, so a controller costs about one series per queue, not one per queue
// and CPU. With k CPUs per line the interrupt term is L × k; on the generated
// host below, where each line has taken interrupts on one CPU, the irq
// collector exports 194 × 4 + 3 + 256 × 11 + 1 = **3,596** series.
//
// The worst case, when every CPU has taken every line's interrupts, is:
//
//	series = L × C            walab_irq_interrupts_total
//	       + 2 × L            walab_irq_affinity_cpus (configured, effective)
//	       + L                walab_irq_off_numa_node
//	       + 2 × D            busiest share + device NUMA node
//	       + C × (T + 1)      walab_softirqs_total + walab_cpu_numa_node
//	       + 1                walab_irqbalance_running
//	       = L × (C + 3) + 2D + C × (T + 1) + 1
//
// Other interrupt lines are never exported, however many the host has.
// `TestIRQCardinalityBound` generates a host and asserts both counts exactly.
// The host has 256 CPUs on 2 nodes and 2,000 interrupt lines. Of those, 194 are
// of interest: two NVMe controllers with 65 queues each, and 64 NIC vectors.
// With D = 3 and T = 10 the count is 194 × 259 + 6 + 256 × 11 + 1 = **53,069**
// series. The L × C term dominates it. It is reached when irqbalance or a
// wide affinity list spreads every line over every CPU; on such a host,
// configure only the NICs that matter.
//
// # Cost
//
// Measured with `go test -run '^$' -bench 'IRQ|Streams|Filesystem' -benchtime 20x ./internal/collector/`
// and `go test -run '^$' -bench . -benchtime 10x ./internal/writehint/ ./internal/irq/`
// on the shared 2-core build box at load average ~20. Wall time (ns/op) is
// inflated by the other jobs and varies by 2x between runs; `cpu-ns/op` is
// this process's CPU time per op.
//
//	| benchmark | ns/op | cpu-ns/op | B/op | allocs/op |
//	|---|---|---|---|---|
//	| BenchmarkIRQUpdate (256 CPUs, 2,000 lines, 53,069 series) | 220-260 ms | 83-100 ms | 18 MB | 143k |
//	| BenchmarkStreamsUpdate (5 controllers, one cached data dir) | 0.8-2.0 ms | 1.0 ms | 80 KB | 1,032 |
//	| BenchmarkFilesystemUpdate (64 paths, real statfs) | 2-4 ms | 1.2-1.8 ms | 126 KB | 2,245 |
//	| writehint BenchmarkScan (1,000 files, cold walk) | 90-145 ms | 30-34 ms | 0.76 MB | 13k |
//	| irq BenchmarkParseInterrupts (256 CPUs x 2,000 lines, 3 MB) | 63 ms | | 8.3 MB | 8k |
//
// The per-CPU interrupt series reuse their label pairs across scrapes, so the
// IRQ collector's remaining cost is mostly one sample per series; it scales
// with L x C, so trimming the lines of interest is the lever. A 100,000-file
// walk costs about 100 times the 1,000-file scan, which is why walks are
// cached for `rescan_interval`.
package collector
