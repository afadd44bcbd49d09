// Package driver: why the MySQL connections use blocking sockets or the poller (moved from docs/loadgen.md).
//
// # Blocking sockets or the poller
//
// A terminal that waits on a blocking socket sleeps in `recv` on its own thread, as a sysbench
// thread does; with raw reads it even keeps the Go runtime's P through the wait. That pays when a
// reply comes within microseconds and the terminals are few beside the CPUs. When they are many,
// or wait long (TPC-C: row locks, a dozen statements a transaction), every reply wakes its own
// thread, and Go's network poller, which hands many ready connections to a few threads from one
// `epoll_pwait`, costs less. So `--mysql-blocking-io` left unset is on only for a sysbench workload
// with at most 4 terminals per CPU (`blockingFor`, `TestBlockingFor`); a workload declares that its
// terminals wait long (`workload.Spec.Poller`, set by `tpcc`). Measured with loadgen alone on a
// private mariadbd, the two modes alternated (client CPU per transaction, user + sys):
//
//	| workload, terminals (2 CPUs) | blocking sockets | poller |
//	|---|---|---|
//	| oltp_read_write, 8 | 502-554 µs | 594-609 µs |
//	| oltp_read_write, 16 | 661-706 µs | 581-634 µs |
//	| oltp_point_select, 16 | 23.9-27.9 µs | 25.9-26.4 µs |
//	| oltp_read_write, 64 | 732-786 µs | 480-577 µs |
//	| tpcc (4 warehouses), 8 | 0.56-0.57 ms | 0.47-0.52 ms |
//	| tpcc, 32 / 64 | 0.91-1.10 / 0.86-0.91 ms | 0.48-0.52 / 0.48-0.50 ms |
//	| tpcc, 150 / 250 | 0.68-0.71 / 0.70-0.71 ms | 0.48-0.49 / 0.49-0.51 ms |
//	| tpcc, 330 (raw reads off: more than 254 terminals) | 0.62-0.69 ms, 46 MiB | 0.51-0.57 ms, 38 MiB |
//
// The poller also had the higher throughput in every tpcc row from 32 terminals up (at 8, 19.0-19.8k
// transactions against 20.0-21.0k in 20 s) and about half the peak RSS at 150 and 250 terminals (27 and
// 33 MiB against 48-49 and 63-64: raw reads raise `GOMAXPROCS` to the terminals + 2).
// Commands and the seed-scale comparison with go-tpc are in
// [bench/RESULTS-loadgen.md](../bench/RESULTS-loadgen.md), "Seed 000's scale".
package driver
