// Package exporterapp: the exporter's cost, at rest and on a big host (moved from docs/exporter.md).
//
// # Performance
//
// `BenchmarkScrape24Devices` gathers the registry with only the nvme collector,
// for 24 replayed controllers of all five source kinds:
//
//	go test -run='^$' -bench=Scrape24 -benchmem ./exporter/
//	BenchmarkScrape24Devices/uncached-2   4341181 ns/op   425163 B/op   7032 allocs/op
//	BenchmarkScrape24Devices/cached-2     2164781 ns/op   342290 B/op   6544 allocs/op
//
// These numbers come from a shared 2-core machine that was busy with other
// builds. Across runs the time per scrape varied by 2–5x; the allocation counts
// did not. About 270 allocations per device per scrape go to building the
// constant metrics and to the registry's Gather.
//   - **uncached** reads every device on every scrape (replay file reads stand in
//     for ioctls).
//   - **cached** is the steady state within `--nvme.cache-max-age`.
//
// # The whole scrape on a big host
//
// `BenchmarkScrapeAll` scrapes the whole exporter, every collector on, on the
// worst-case fixture of [collectors-host.md](collectors-host.md): 256 CPUs on
// two NUMA nodes, 2,000 interrupt lines (1.1 MB of `/proc/interrupts`), 24
// replayed controllers, two InnoDB targets; 9,417 series. It reports CPU time
// per scrape (`cpu-ns/op`, user+system of the process: on the shared machine
// wall time mostly measures the other jobs) and allocations.
//
// Run it with:
//
//	go test -c -o exporter.test ./exporter/ && cd exporter
//	../exporter.test -test.run='^$' -test.bench='ScrapeAll/handler' -test.benchtime=20x
//
// On the shared 2-core machine one scrape of the fixture costs about 31 ms of
// CPU in process (33 ms over loopback as text, 41 ms gzipped) and 6.0
// allocations per series. What keeps it there:
//
//   - `/proc/interrupts` is parsed bytes-at-a-cursor (`irq.InterruptsParser`):
//     one counts array and one string of names per file, and the collector keeps
//     the parser's memory from one scrape to the next. The old reading stays in
//     the tests as an oracle, with a differential fuzz target.
//   - Label pairs are built once per series and reused while the series exists,
//     and samples come from blocks of 256, for the irq and cpu families.
//   - Each big family is sent in the order Gather sorts it into, so
//     client_golang's sort is linear; a test holds the collectors to it.
//   - Affinity files are read with `openat` under one `/proc/irq` descriptor and
//     plain `read(2)`: three system calls a file instead of `os.ReadFile`'s nine
//     on procfs.
//
// At 256 CPUs, reading `/proc/interrupts` (procfs formats it on every read)
// probably costs the kernel more than walab's parse. The before-and-after
// measurements of these changes, the remaining profile and that estimate,
// with command, date and machine, are in
// [bench/RESULTS-exporter.md](../bench/RESULTS-exporter.md).
//
// # At rest, beside node_exporter and mysqld_exporter
//
// `bench/exporter-at-rest.sh` runs walab beside the stack a user would
// otherwise run (Debian's prometheus-node-exporter 1.5.0 and
// prometheus-mysqld-exporter 0.14.0, default collectors, the same MariaDB)
// and prints CPU per gzip scrape, CPU at rest, RSS and series, with the
// ratios. "walab" is `make run`'s exporter exactly as `walab lab` starts it:
// `walab lab --print-exporter --no-simfs --out DIR` writes the lab's configuration and
// prints that command line (the 256 MiB simulated drive of the synthetic mix, InnoDB on both lab
// instances, the placement tracer, no host, filesystem or irq collectors; the
// lab's default exporter also serves the drive's filesystem, not measured here).
// "walab_nvme" is the deployed configuration (`deploy/local/exporter.yml`) on
// five replayed controllers (`--nvme.replay`), as on a host with NVMe drives.
//
// In its run on the shared 2-core machine, walab (`make run`'s exporter) used
// 0.57–0.62 of the stack's CPU per scrape and 0.62 of its resident memory
// (24.0 vs 38.5 MiB) for 287 series against 1,631; its CPU at rest (6 ms/s) is
// mostly the lab's WA sampler reading the simulated drive every second. The run,
// its command, date and machine, and the replayed controllers' figures are in
// [bench/RESULTS-exporter.md](../bench/RESULTS-exporter.md).
package exporterapp
