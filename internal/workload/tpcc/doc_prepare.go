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
// Committing once per unit of work (the item table; a warehouse's stock and
// row; one district) rather than per batch raised the speed from 1.75 to 2.6
// warehouses/min with 2 workers on the same box.
//
// With @@local_infile on, prepare loads with LOAD DATA LOCAL INFILE from
// memory (batches of 1,000 tab-separated rows): the server parses no SQL per
// row. LOAD DATA LOCAL skips a row whose key exists with only a warning where
// INSERT fails, so a batch whose affected rows differ from the rows sent
// stops the load with an error.
//
// # Check time
//
// check took about 5 s for one full warehouse here, growing linearly with
// the warehouses; CheckWarehouses runs the same conditions on a range, to
// sample a large database (warehouses 1-10 after a 12-hour run of 4050) or
// to check it in shards.
//
// # --keep-size
//
// Its deletes are range deletes at the oldest end of each table's primary
// key, away from the inserts at the newest end, and InnoDB reuses the freed
// pages for the new rows, so the files stop growing. History rows are
// deleted by count, not by id: the load's AUTO_INCREMENT ids have gaps.
// BenchmarkSQL 5.0 has no such mode. TestKeepSizeHoldsTheTables holds it
// against MariaDB.
package tpcc
