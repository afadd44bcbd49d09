// Package wa: how the exporter wires the sampler, and its benchmarks (moved from docs/wa.md).
//
// # For the exporter core (wiring)
//
// `internal/exporterapp/app.go` builds the sampler when the `wa` collector is
// on, and `serve.go` runs it:
//
//	var waCfg wa.Config
//	_ = cfg.Decode("wa", &waCfg)                                  // strict YAML section
//	s, err := wa.New(waCfg.Options(wa.FromPollers(pollers, o.ReadTimeout), logger))
//	collector.New(collector.Env{..., WA: s})                      // the wa collector exports its metrics
//	mux.Handle(wa.RunStartPath, guard.Wrap(s.Handler()))          // POST/GET /api/v1/run-start, behind apiguard
//	go s.Run(ctx)                                                 // samples now, then every interval; saves on exit
//	defer s.Close()                                               // App.Close
//
// `wa.FromPollers` adapts the NVMe probe's cached device reads (the same reads
// the `nvme` collector serves) to `wa.Reader`:
// `ReadCounters(ctx) (map[string]wa.Counters, error)`, one entry per device
// with cumulative `HostBytes` and `MediaBytes` (host + GC) in bytes, the
// counter `Source`, and `OK` false for a device that failed this time.
// The sampler never calls it concurrently with itself.
//
// # Benchmarks
//
// `go test -run '^$' -bench . -benchtime=2s ./internal/wa/` on the shared
// 2-core build machine; the first column at load average about 9, the
// second at about 20 (wall times there are pessimistic):
//
//	| benchmark | load ~9 | load ~20 |
//	|---|---|---|
//	| `Sample`, 24 devices, full 24h rings, no state file | 4.1 µs/op, 0 B/op, 0 allocs/op | 19 µs/op |
//	| `Snapshot` (what a scrape computes), 24 devices | 30 µs/op, 28 allocs/op | 79 µs/op |
//	| state encoding, 24 full devices | 0.24 ms/op, 0 allocs/op (buffer reused) | 0.49 ms/op |
//	| full state-file save (encode, write, fsync, rename, dir fsync), 831 KB | 7.3 ms/op | 18 ms/op |
package wa
