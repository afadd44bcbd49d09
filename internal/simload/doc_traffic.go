// Package simload: the traffic generators of the simulated drive, in detail (docs/sim.md summarises them).
//
// # The generators
//
//	| `workload.name` | pattern |
//	|---|---|
//	| `uniform` | uniform random writes over the first `fill_start` of the logical space (`io_pages` per command) |
//	| `hotcold` | `hot_access` of the writes go to the first `hot_space` of that space (80/20 and 90/10 are the classic cases). The hot class is file `hot.dat`, the cold class is `cold.dat`. |
//	| `sequential` | a sequential loop over the first `fill_start` (WA → 1) |
//	| `mysql` | the MySQL-like mix below (default) |
//
// **MySQL-like mix.** The logical space is laid out as
// `[redo ring][doublewrite ring][undo ring][binlog file slots][tablespaces → grow]`:
//
//		| class | file the rules see | behaviour | default share of host bytes | command |
//		|---|---|---|---|---|
//		| redo | `#ib_redo10` | circular, short-lived (`redo_space` 2 %) | 20 % | 8 KiB |
//		| doublewrite | `#ib_16384_0.dblwr` | small circular (`doublewrite_space` 0.2 %) | 30 % | 64 KiB |
//		| undo | `undo_001` | circular (`undo_space` 1 %) | 5 % | 16 KiB |
//		| binlog | `binlog.000001` | sequential append in files of `binlog_file_space`. When more than `binlog_retain_space` is kept, the oldest file is deleted, which is a **TRIM**. | 15 % | 8 KiB |
//		| data | `sbtest1.ibd` | random 16 KiB page overwrites with a `hot_access`/`hot_space` skew (the newest part of the tablespace is hot). `growth` of the data writes append new pages until the fill reaches `fill_max`. | 30 % | 16 KiB |
//
//	  - **Fill.** The drive starts at `fill_start` (default 0.65). Seed 000 fills 60–70 % and runs
//	    12 hours to reach above 90 %. The tablespaces then grow toward `fill_max` (default 0.9).
//	  - **Growth rate.** By default `growth` is derived from `fill_hours`: the tablespaces grow from
//	    `fill_start` to `fill_max` in that many simulated hours at `rate` (12 h, like seed 000's
//	    720-minute run).
//	  - **Binlog retention.** By default `binlog_retain_space` is derived from
//	    `binlog_expire_seconds × rate × binlog share ÷ capacity` (seed 000 sets
//	    `binlog_expire_logs_seconds=1800`), clamped to 0.1 %–30 %.
package simload
