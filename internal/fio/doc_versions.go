// Package fio: fio's JSON across its versions (moved from docs/fio.md).
//
// # fio's versions
//
// walab reads the JSON of every fio from 2.2 on (internal/fio/raw.go lists
// what changed when, from fio's stat.c): `io_bytes` in KiB before 2.21,
// latencies in µs (`clat`) before 3.0, `bw` in KiB/s without `bw_bytes`
// before 3.2, no sample count `N` before 3.18 (a direction without I/O, or
// whose latency fio did not time, prints zeros there: read as no latency,
// never as 0). Figures come out in bytes, bytes per second and nanoseconds.
// With `--unified_rw_reporting=mixed` fio prints reads and writes together:
// the report shows them on a line of their own and leaves the read and write
// columns empty. fio 2.0/2.1 (no `total_ios`) and client/server output
// (`client_stats`) are refused with that reason; a report fio wrote after a
// signal stopped it ("fio: terminating on signal 2") is not counted.
package fio
