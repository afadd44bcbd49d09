// Package tpcc: the schema and the transactions as loadgen runs them, in detail (moved from docs/tpcc.md).
//
// # Schema
//
// `--tables=N` (sysbench-tpcc's option, seed 002's `tpcc.lua` line) loads N
// independent copies of the ten tables, named with a suffix 1..N
// (`bmsql_warehouse1` …); see docs/loadgen.md. `cleanup` drops the tables of
// the one schema and of every copy it finds in the database (one
// `information_schema` look-up), whatever `--tables` it is given.
//
// The ten tables and their columns are BenchmarkSQL 5.0's. Keys and indexes are
// declared inline, as in the MySQL forks of 5.0 (pingcap/benchmarksql):
//
//	| table | rows per warehouse | key / indexes |
//	|---|---|---|
//	| `bmsql_config` | (see below) | `cfg_name` |
//	| `bmsql_warehouse` | 1 | `w_id` |
//	| `bmsql_district` | 10 | `(d_w_id, d_id)` |
//	| `bmsql_customer` | 30,000 | `(c_w_id, c_d_id, c_id)`; `bmsql_customer_idx1 (c_w_id, c_d_id, c_last, c_first)` |
//	| `bmsql_history` | 30,000 | `hist_id` auto-increment |
//	| `bmsql_oorder` | 30,000 | `(o_w_id, o_d_id, o_id)`; unique `bmsql_oorder_idx1 (o_w_id, o_d_id, o_c_id, o_id)` |
//	| `bmsql_new_order` | 9,000 | `(no_w_id, no_d_id, no_o_id)` |
//	| `bmsql_order_line` | about 300,000 | `(ol_w_id, ol_d_id, ol_o_id, ol_number)` |
//	| `bmsql_stock` | 100,000 | `(s_w_id, s_i_id)` |
//	| `bmsql_item` | 100,000 in total, not per warehouse | `i_id` |
//
// The tables have no foreign keys. The `timestamp` columns are declared `NULL
// DEFAULT NULL`, so no server setting can turn one into an auto-updating column.
// The data follows TPC-C clause 4.3.3.1:
//
//   - C_LAST is built from syllables. Customers 1–1000 of each district get the
//     names 0–999 in order; the rest get NURand(255,0,999) with C-Load.
//   - `o_c_id` is a random permutation of the customers.
//   - Orders 2101–3000 are undelivered: their `o_carrier_id` is NULL, they have a
//     `bmsql_new_order` row, and their order lines have a NULL `ol_delivery_d` and
//     a random `ol_amount`.
//   - 10% of the item and stock rows carry "ORIGINAL" in their data column.
//   - `c_balance` starts at −10.00 and `c_ytd_payment` at 10.00.
//
// One warehouse takes about 100 MB in InnoDB.
//
// `bmsql_config` holds BenchmarkSQL's rows: `warehouses`, and the C-Load values
// `nURandCLast`, `nURandCC_ID` and `nURandCI_ID`. walab adds these rows:
//
//   - `walab_items` and `walab_customers_per_district` record the scale;
//   - `walab_loaded_item` and one `walab_loaded_w_<n>` per warehouse mark what is
//     fully loaded.
//
// # Transactions (run)
//
// The transaction labels are `new_order`, `payment`, `order_status`,
// `delivery` and `stock_level`.
//
//   - **Mix:** the default is 45/43/4/4/4 (`newOrderWeight`, `paymentWeight`,
//     `orderStatusWeight`, `deliveryWeight`, `stockLevelWeight`). The weights must
//     sum to 100. Each terminal deals its transactions from its own shuffled deck
//     of 100 cards, with one card per percent (spec 5.2.4.2 allows a deck). So
//     every 100 transactions of a terminal hold exactly the configured mix.
//   - **Home warehouse:** with `terminalWarehouseFixed=true`, terminal *i* uses
//     warehouse *i* mod W + 1. Otherwise each transaction picks a random home
//     warehouse. Stock-Level always uses the terminal's own district,
//     (*i*/W) mod 10 + 1, so the first 10·W terminals have distinct
//     (warehouse, district) pairs.
//   - **NURand and C:** NURand(A,x,y) uses A = 255 for C_LAST, 1023 for C_ID and
//     8191 for OL_I_ID. Before its first transaction a run reads C-Load from
//     `bmsql_config` and draws a C-Run:
//   - for C_LAST, C-Run satisfies 65 ≤ |C-Run − C-Load| ≤ 119, and the
//     difference is neither 96 nor 112 (spec 2.1.6.1);
//   - C_ID and OL_I_ID get fresh values.
//   - **New-Order:**
//   - 5–15 lines. 1% of lines are supplied by another warehouse when W > 1.
//   - 1% of New-Orders end with an unused item id: the profile runs in full,
//     then the transaction rolls back, and the outcome is
//     `workload.UserRollback`, which counts as a success.
//   - Items are read with one `IN` list, and stock rows are locked with
//     `SELECT … FOR UPDATE`, one `IN` list per supply warehouse in
//     (warehouse, item) order. That is BenchmarkSQL's deadlock-avoiding order.
//   - All stock updates go in as one statement (`INSERT … ON DUPLICATE KEY
//     UPDATE` on the locked rows), and all order lines as one multi-row INSERT.
//     That is one round trip each, as BenchmarkSQL gets from JDBC batches with
//     `rewriteBatchedStatements=true`.
//   - **Payment:**
//   - 15% of payments are for a customer of another warehouse when W > 1.
//   - 60% find the customer by last name, taking the row at position ⌈n/2⌉
//     ordered by first name.
//   - Updates the warehouse, the district and the customer (locked
//     `FOR UPDATE`). A "BC" customer's `c_data` gets the payment prepended,
//     truncated at 500 characters.
//   - Inserts the history row.
//   - **Order-Status:** 60% by last name; reads the customer's newest order and
//     its lines.
//   - **Delivery:** as in BenchmarkSQL 5.0, inside the terminal, as one
//     transaction over all 10 districts. For each district it takes the oldest
//     new order (`ORDER BY no_o_id LIMIT 1 FOR UPDATE`), deletes it, sets the
//     carrier, stamps the order lines, and credits the customer. A district with
//     nothing to deliver is skipped.
//   - **Stock-Level:** a threshold in 10–20; counts the distinct items with low
//     stock among the last 20 orders of the terminal's district.
//   - **Keying and think times:** off by default, as in BenchmarkSQL. When enabled
//     (the BenchmarkSQL 6 keys `keyingTimeMultiplier` and `thinkTimeMultiplier`
//     set > 0), they use the spec's values:
//   - keying time 18/3/2/2/2 s;
//   - think time −ln(r)·mean, with means 12/12/10/5/5 s, capped at 10× the mean;
//   - both times the multiplier.
//
// **Statements and round trips.** Statements are server-side prepared once per
// terminal and connection. The exceptions are New-Order's two multi-row
// writes, which are sent as text with literal values. Transactions are driven
// by hand, because a `database/sql` Tx would re-prepare the statements: as
// BenchmarkSQL does through JDBC's `setAutoCommit(false)`, a terminal turns
// autocommit off once per connection (`SET autocommit=0`), the server opens each
// transaction at its first statement, and the terminal ends it with `COMMIT` or
// `ROLLBACK`; no `START TRANSACTION` is sent. A terminal that ends turns autocommit
// back on before its connection returns to the pool, and the connection is
// discarded if it cannot. Statements per transaction, the two multi-row writes
// and the `COMMIT` included:
//
//	| type | statements |
//	|---|---|
//	| New-Order | 10 (one more per extra supply warehouse) |
//	| Payment | 8–10 |
//	| Order-Status | 4–5 |
//	| Delivery | up to 71 |
//	| Stock-Level | 3 |
//
// Over the mix that is about 11.4 statements per transaction (the server's
// `Questions`), one fewer than with a `START TRANSACTION` each
// (`bench/tpcc-seed-scale.sh` prints it beside go-tpc's).
//
// A terminal holds at most 29 prepared statements. Mind
// `max_prepared_stmt_count` (MariaDB default 16382) at about 560 terminals per
// server. A terminal also implements `io.Closer`, which releases its statements.
//
// **Deadlocks.** With the lock ordering above, the tests' driver saw no
// deadlocks or lock-wait timeouts at all. That includes 1500 transactions from
// 10 terminals on a single warehouse.
//
// **Client CPU.** Measured with getrusage around 3000 transactions, 4
// terminals, 2 warehouses at reduced scale, on the overloaded shared box:
//
//	go test ./internal/workload/tpcc -run '^$' -bench BenchmarkTransactions -benchtime 3000x
//
// The result was **0.84–0.92 CPU-ms per transaction** at a load average of
// about 13, and 1.1–1.4 at about 20. Transactions averaged 12.4 statements. An earlier version that sent one statement per order
// line used 2.0 CPU-ms. The cost is mostly socket syscalls and the Go
// scheduler's polling; the workload's own code is a few percent of the
// profile. The reference tools measured 0.6–0.67 CPU-ms on a quiet box of the
// same size (loadgen-anchors §7.2). Ours has not been measured on a quiet
// box.
package tpcc
