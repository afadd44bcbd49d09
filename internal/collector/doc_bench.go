// Package collector: the whole-exporter scrape benchmark and how the collectors behave on a hung mount (the detail behind docs/collectors-host.md).
//
// # Whole-exporter scrape benchmark
//
// `exporter/scrape_all_bench_test.go` builds the exporter as `serve` does
// (`exporterapp.New`: every collector on, the WA sampler, Go/process metrics)
// on a generated worst case:
//
//   - 256 CPUs on 2 NUMA nodes and 2,000 interrupt lines;
//   - 24 replayed controllers (every NAND source in turn), each with 33 queues
//     `nvmeXq0..32`, plus a 64-vector NIC `eth0`, so 856 lines are of interest;
//   - one walked data dir and two filesystem paths;
//   - two InnoDB targets: the machine's MariaDB and a private mariadbd.
//
// `--nvme.cache-max-age` is 1ns, so every scrape reads every device, as it
// does when Prometheus scrapes less often than the cache age.
//
// These figures are with `irq.per_cpu: true`. The per-host series budget,
// the default collectors with the default IRQ view on the same host, is
// **8,457** `walab_` series (irq 5,460, cpu 2,048, nvme 516, streams 233,
// wa 160, the rest 46) plus the Go runtime's own; `TestSeriesBudget`
// (exporter/series_budget_test.go) fails when the exporter grows past it.
//
// `TestScrapeAllSeriesCount` runs the same setup without InnoDB targets, so it
// needs no MariaDB. It checks the series count of each group exactly, and it
// checks that two worst-case scrapes return the same series. (Its first scrape, with
// each line on one CPU, has L × (C − 1) = 218,280 fewer interrupt series: 6,266 in all.)
//
//	| group | series | from |
//	|---|---|---|
//	| irq | 224,571 | L × (C + 3) + 2D + C × (T + 1) + 1 with L = 856, C = 256, D = 25, T = 10 |
//	| nvme | 466 | per controller: FDP 21, OCP C0 18, seed 000 19, endurance 20, SMART-only 19 |
//	| streams | 233 | 9 per controller, 15 for the data dir, kernel param, placement daemon |
//	| wa | 140 | 7 for each of the 20 controllers with a NAND counter (2 samples) |
//	| filesystem | 6 | 3 per path |
//	| framework | 10 | duration and success for 5 collectors |
//
// The walab series total 225,426. With the 45 Go and process series, a scrape
// has 225,471 samples. The two InnoDB targets add 43 more, for 225,514. The
// `walab_irq_interrupts_total` term (L × C = 219,136) is 97% of the scrape.
//
// Command (shared 2-core box, load average 1–4):
//
//	go test -run='^$' -bench=ScrapeAll -benchmem -benchtime=10x ./exporter/
//
//	| variant | ns/op | cpu-ns/op | B/op | allocs/op | series/scrape | bytes/scrape |
//	|---|---|---|---|---|---|---|
//	| handler (in process, httptest recorder) | 1.57–2.49 s | 1.92–2.67 s | 258 MB | 1.46 M | 225,514 | 18.74 MB |
//	| text (loopback HTTP, identity) | 1.55–1.82 s | 1.86–2.06 s | 153 MB | 1.47 M | 225,514 | 18.74 MB |
//	| gzip (loopback HTTP, as Prometheus asks) | 1.69–2.29 s | 1.96–2.68 s | 153 MB | 1.47 M | 225,514 | 1.26 MB |
//
// The ranges cover three runs. bytes/scrape moves by a few bytes between
// scrapes, because durations and timestamps have different lengths.
//
// `cpu-ns/op` is this process's user plus system time per scrape, from
// getrusage. It can exceed ns/op because collectors run in parallel. At load
// average 9, wall time rose to 5 s per scrape. The handler variant allocates
// more because the recorder buffers the whole 19 MB body.
//
// A CPU profile of the handler variant shows where the time goes. About 40% is
// client_golang's `Gather`: sorting the metrics (19%) and checking their
// consistency (14%). About 22% is text encoding, 14% is the irq collector
// itself, and most of the rest is GC. The cost follows the series count,
// and the series count is almost all L × C. Each controller with 33 queues
// costs 33 × 259 = 8,547 IRQ series. NVMe queues are always lines of interest,
// so on such a host give Prometheus a `scrape_timeout` of at least 5 s, and
// list only the NICs that matter in `irq.interfaces`.
//
// # A hung mount
//
// A `stat` or `statfs` on a hard NFS or FUSE mount whose server is gone blocks
// in the kernel and cannot be cancelled: the thread that made it is lost until
// the server answers. What the exporter promises:
//
//   - **One call out per path.** Resolving a data directory (`stat`) and `statfs`
//     of each mount point are sent at most once per path at a time, shared by the
//     endpoint and the collector. A request that comes while one is out waits
//     for it; once a request has given up on it the path is *stuck*: later
//     requests skip it at once, without a new call, until the call returns. At
//     most 80 calls (16 directories + 64 mounts) are ever out, whatever the
//     number of requests, so a hung mount holds a bounded number of threads.
//   - **Absent, not zero.** A stuck directory has no mount in the facts and no
//     `walab_host_mount_*` series; a mount whose `statfs` is stuck has no size,
//     used, available or fill (`null` in JSON, no series). Both are named under
//     `errors`.
//   - **The scrape's deadline.** The collector stops waiting at the scrape's
//     deadline (`X-Prometheus-Scrape-Timeout-Seconds` less 0.5 s, or
//     `--scrape.timeout`), and at 5 s per call in any case.
//   - **`GET /api/v1/host` is bounded.** One read of the facts runs at a time
//     for every client, with a deadline of 5 s; its answer serves the requests
//     of the next second; at most 16 requests wait for a read and the rest get
//     `503` with `Retry-After: 1`. A read walks `/proc` once (for every watched
//     name and irqbalance), which is what a host with 100,000 processes pays
//     at most once a second.
//
// Tested by `hostfacts: TestHungStatBounded` (500 reads against an injected
// stat and statfs that never return: two calls out, the reads end at their
// deadlines with an hour's per-call timeout), `exporterapp:
// TestHostEndpointBounded` (40 clients at once: one read, 24 refused, the
// cache serves the next 100) and `test/chaos: TestHungMountBoundsThreads` (a
// FUSE mount whose directory and statfs never answer under the real kernel;
// 120 concurrent host-facts requests and scrapes leave the exporter's thread
// count within 32 of its start, where each request left one thread before;
// needs root and `/dev/fuse`, and fails rather than skips under `CI=true`).
package collector
