// Package tpcc: prepare's measured speed (moved from docs/tpcc.md).
//
// # Prepare speed
//
// Prepare speed at full scale: 2 warehouses per measurement, with MariaDB
// 10.11 (`innodb_flush_log_at_trx_commit=1`, 128 MiB buffer pool) on the same
// 2-vCPU box as the client. About 8 other builds shared the box, at a load
// average of about 13:
//
//	    go test ./internal/workload/tpcc -run '^$' -bench BenchmarkPrepare -benchtime 1x
//
//		| loadWorkers | warehouses per minute |
//		|---|---|
//		| 2 | 4.5 (2 warehouses + the item table in 27.6 s; 2.6 when the load average was ~20) |
//		| 4 | 5.2 (23.6 s; 3.4 when the load average was ~20) |
//
// The full 1-warehouse load (`TestFullWarehouseLoad`, 2 workers) took 16.5 s at a load average of about 13, and 28–40 s when it was 20–33.
// These numbers come from an overloaded shared box: use them as a lower bound.
package tpcc
