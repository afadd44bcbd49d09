package tpcc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/walab/walab/internal/workload"
)

// A warehouse is loaded as 11 units so that even one warehouse keeps several
// loaders busy: its stock (with the warehouse row) and one unit per district
// (district row, customers, history, orders, new orders, order lines).
const unitsPerWarehouse = 1 + districtsPerWarehouse

const districtsPerWarehouse = 10

type loadUnit struct {
	item      bool
	warehouse int
	district  int    // 0: the warehouse row and its stock
	lineKey   uint64 // a district's order-line counts (lineCounts)
}

// rows is the exact number of rows the unit loads, for progress.
func (u loadUnit) rows(s scale) int64 {
	switch {
	case u.item:
		return int64(s.Items)
	case u.district == 0:
		return 1 + int64(s.Items) // the warehouse and its stock
	}
	n := int64(1 + 3*s.Customers + s.newOrders()) // district, customers, history, orders, new orders
	for _, c := range lineCounts(u.lineKey, s.Customers) {
		n += int64(c)
	}
	return n
}

// lineCounts are the order-line counts of a district's orders, 5 to 15
// each (spec 4.3.3.1), drawn from a stream of their own so that Prepare
// knows the load's row count before it starts.
func lineCounts(key uint64, orders int) []int {
	r := rand.New(rand.NewPCG(key, 0x011e5))
	out := make([]int, orders)
	for i := range out {
		out[i] = uniform(r, 5, 15)
	}
	return out
}

// loadUnits lists what is left to load: the items unless loaded, then each
// missing warehouse's stock and its districts.
func (w *Workload) loadUnits(itemLoaded bool, missing []int) []loadUnit {
	var units []loadUnit
	if !itemLoaded {
		units = append(units, loadUnit{item: true})
	}
	for _, wh := range missing {
		for d := 0; d <= districtsPerWarehouse; d++ {
			key := unitKey(w.opts.Seed, wh, d)
			if w.opts.Seed == 0 {
				key = rand.Uint64()
			}
			units = append(units, loadUnit{warehouse: wh, district: d, lineKey: key})
		}
	}
	return units
}

// unitKey is a unit's deterministic stream key for a seeded load.
func unitKey(seed uint64, wh, d int) uint64 { return seed ^ uint64(wh)<<20 ^ uint64(d)<<8 }

// Prepare creates the schema and loads opts.Warehouses warehouses with
// popts.Workers parallel loaders. It resumes a load that stopped half way:
// bmsql_config records each completed warehouse, and an incomplete one is
// wiped and loaded again. A schema loaded with another warehouse count, or
// by another tool, is refused.
func (w *Workload) Prepare(ctx context.Context, db *sql.DB, popts workload.PrepareOptions) error {
	if w.opts.Warehouses < 1 {
		return errors.New("tpcc prepare: warehouses must be at least 1")
	}
	workers := popts.Workers
	if workers < 1 {
		workers = 4 // BenchmarkSQL's loadWorkers default
	}
	for _, q := range createTables {
		if _, err := db.ExecContext(ctx, w.names.sql(q)); err != nil {
			return fmt.Errorf("tpcc prepare: create table: %w", err)
		}
	}
	cfg, err := w.startOrResume(ctx, db)
	if err != nil {
		return err
	}
	var missing []int
	for wh := 1; wh <= w.opts.Warehouses; wh++ {
		if !cfg.done[wh] {
			missing = append(missing, wh)
		}
	}
	if err := w.wipePartial(ctx, db, cfg); err != nil {
		return err
	}
	units := w.loadUnits(cfg.itemLoaded, missing)
	var total int64
	for _, u := range units {
		total += u.rows(w.opts.scale)
	}
	rows, progress := loadProgress(total, popts.Progress)
	l, err := w.newLoader(ctx, db, cfg, missing, progress)
	if err != nil {
		return err
	}
	if err := l.run(ctx, units, workers); err != nil {
		return err
	}
	if popts.Progress != nil {
		v := rows.Load()
		popts.Progress(workload.ProgressEvent{Rows: v, TotalRows: v})
	}
	return w.analyze(ctx, db)
}

// wipePartial deletes the partial rows of incomplete units before they
// are loaded again (a fresh load has none: startOrResume checked the
// tables are empty).
func (w *Workload) wipePartial(ctx context.Context, db *sql.DB, cfg *loadedConfig) error {
	if cfg.fresh {
		return nil
	}
	if !cfg.itemLoaded {
		if _, err := db.ExecContext(ctx, w.names.sql("DELETE FROM bmsql_item")); err != nil {
			return fmt.Errorf("tpcc prepare: clear partial bmsql_item: %w", err)
		}
	}
	partial, err := partialWarehouses(ctx, w.names.on(db), cfg.done)
	if err != nil {
		return err
	}
	for _, wh := range partial {
		for _, tc := range warehouseColumn {
			if _, err := db.ExecContext(ctx, w.names.sql("DELETE FROM "+tc.table+" WHERE "+tc.column+" = ?"), wh); err != nil {
				return fmt.Errorf("tpcc prepare: clear partial warehouse %d in %s: %w", wh, tc.table, err)
			}
		}
	}
	return nil
}

// loadProgress counts the rows loaded and reports each step to report
// (when set), out of total or the count so far if that is more.
func loadProgress(total int64, report func(workload.ProgressEvent)) (*atomic.Int64, func(int)) {
	rows := new(atomic.Int64)
	var mu sync.Mutex
	return rows, func(n int) {
		v := rows.Add(int64(n))
		if report != nil {
			mu.Lock()
			report(workload.ProgressEvent{Rows: v, TotalRows: max(total, v)})
			mu.Unlock()
		}
	}
}

// newLoader makes the loader of the missing warehouses. It loads with LOAD
// DATA LOCAL when the server allows it (MariaDB's default; MySQL 8.0 ships
// with local_infile off), multi-row INSERTs otherwise.
func (w *Workload) newLoader(ctx context.Context, db *sql.DB, cfg *loadedConfig, missing []int, progress func(int)) (*loader, error) {
	var localInfile int
	if err := db.QueryRowContext(ctx, "SELECT @@local_infile").Scan(&localInfile); err != nil {
		return nil, fmt.Errorf("tpcc prepare: read local_infile: %w", err)
	}
	l := &loader{db: db, names: w.names, scale: w.opts.scale, c: cfg.c, seed: w.opts.Seed, now: time.Now().UTC().Format("2006-01-02 15:04:05"),
		warehouses: w.opts.Warehouses, progress: progress, remaining: map[int]int{}, bulk: localInfile == 1}
	for _, wh := range missing {
		l.remaining[wh] = unitsPerWarehouse
	}
	return l, nil
}

// analyze gives the optimizer fresh statistics, as BenchmarkSQL's
// buildFinish does.
func (w *Workload) analyze(ctx context.Context, db *sql.DB) error {
	for _, t := range Tables {
		r, err := db.QueryContext(ctx, "ANALYZE TABLE "+w.names.sql(t))
		if err != nil {
			return fmt.Errorf("tpcc prepare: analyze %s: %w", t, err)
		}
		r.Close()
	}
	return nil
}

// partialWarehouses are the warehouses not recorded complete that have
// rows. Each load unit is one transaction and writes its warehouse row
// (the stock unit) or its district row (a district unit) first, so a
// warehouse with any committed unit is in bmsql_warehouse or
// bmsql_district: two small tables, instead of a DELETE on every table for
// every warehouse not yet loaded (800,000 statements before a resumed
// 100,000-warehouse load could go on).
func partialWarehouses(ctx context.Context, db queryer, done map[int]bool) ([]int, error) {
	rows, err := db.QueryContext(ctx, "SELECT w_id FROM bmsql_warehouse UNION SELECT DISTINCT d_w_id FROM bmsql_district ORDER BY 1")
	if err != nil {
		return nil, fmt.Errorf("tpcc prepare: find partial warehouses: %w", err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var wh int
		if err := rows.Scan(&wh); err != nil {
			return nil, fmt.Errorf("tpcc prepare: find partial warehouses: %w", err)
		}
		if !done[wh] {
			out = append(out, wh)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tpcc prepare: find partial warehouses: %w", err)
	}
	return out, nil
}

// startOrResume writes bmsql_config for a new load, or validates that an
// existing one is ours and of the requested size.
func (w *Workload) startOrResume(ctx context.Context, db *sql.DB) (*loadedConfig, error) {
	cfg, err := readConfig(ctx, w.names.on(db))
	if err != nil {
		return nil, err
	}
	if cfg.warehouses == 0 {
		var n int
		q := "SELECT EXISTS(SELECT 1 FROM bmsql_item)"
		for _, tc := range warehouseColumn {
			q += " + EXISTS(SELECT 1 FROM " + tc.table + ")"
		}
		if err := db.QueryRowContext(ctx, w.names.sql(q)).Scan(&n); err != nil {
			return nil, err
		}
		if n > 0 {
			return nil, errors.New("tpcc prepare: the bmsql_* tables hold data but bmsql_config has no warehouses row; " +
				"this is not a load walab can resume: run cleanup first")
		}
		r := rand.New(rand.NewPCG(w.opts.Seed, 0xc0ffee))
		if w.opts.Seed == 0 {
			r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		}
		c := NewLoadConstants(r)
		if err := writeInitialConfig(ctx, w.names.on(db), w.opts.Warehouses, w.opts.scale, c); err != nil {
			return nil, err
		}
		return &loadedConfig{warehouses: w.opts.Warehouses, c: c, scale: w.opts.scale, walab: true, done: map[int]bool{}, fresh: true}, nil
	}
	if !cfg.walab {
		return nil, fmt.Errorf("tpcc prepare: the schema already holds a %d-warehouse load made by another tool (BenchmarkSQL?); "+
			"run check or run against it, or cleanup first to load again", cfg.warehouses)
	}
	if cfg.warehouses != w.opts.Warehouses {
		return nil, fmt.Errorf("tpcc prepare: the schema holds a %d-warehouse load (bmsql_config.warehouses, %d complete) but warehouses=%d was asked; "+
			"use warehouses=%d to resume it, or cleanup first", cfg.warehouses, cfg.loaded, w.opts.Warehouses, cfg.warehouses)
	}
	if cfg.scale != w.opts.scale {
		return nil, fmt.Errorf("tpcc prepare: the schema was loaded at scale %+v, not %+v: cleanup first", cfg.scale, w.opts.scale)
	}
	return cfg, nil
}

// loader runs the units of a load on a pool of connections.
type loader struct {
	db         *sql.DB
	names      tableNames
	scale      scale
	c          Constants
	seed       uint64
	now        string // load timestamp literal
	warehouses int
	progress   func(int)
	bulk       bool // LOAD DATA LOCAL INFILE instead of INSERT (see inserter)

	mu        sync.Mutex
	remaining map[int]int // units left per warehouse
}

func (l *loader) run(parent context.Context, units []loadUnit, workers int) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	jobs := make(chan loadUnit)
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := l.db.Conn(ctx)
			if err != nil {
				errc <- err
				cancel()
				return
			}
			defer conn.Close()
			for u := range jobs {
				if err := l.loadUnit(ctx, conn, u); err != nil {
					errc <- err
					cancel()
					return
				}
			}
		}()
	}
feed:
	for _, u := range units {
		select {
		case jobs <- u:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		// A cancel can surface from the driver as "bad connection" rather
		// than context.Canceled; the caller's cancel is what happened.
		if cerr := parent.Err(); cerr != nil && !errors.Is(err, cerr) {
			return fmt.Errorf("%w (%v)", cerr, err)
		}
		return err
	}
	return parent.Err()
}

// unitAttempts bounds the tries of one load unit: concurrent units insert
// into the same tables, and InnoDB may pick one as a deadlock victim; the
// unit is one transaction with its own seeded stream, so a retry loads
// exactly the same rows.
const unitAttempts = 5

func (l *loader) loadUnit(ctx context.Context, conn *sql.Conn, u loadUnit) error {
	var err error
	for attempt := 1; ; attempt++ {
		var rows int
		err = l.loadUnitTxn(context.WithValue(ctx, unitRowsKey{}, &rows), conn, u)
		var me *mysql.MySQLError
		if err == nil {
			return l.unitDone(ctx, conn, u)
		}
		if attempt == unitAttempts || !errors.As(err, &me) || (me.Number != 1213 && me.Number != 1205) {
			return err
		}
		if l.progress != nil {
			l.progress(-rows) // rolled back: those rows are not loaded
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		}
	}
}

// loadUnitTxn loads one unit in one transaction, rolled back on error.
func (l *loader) loadUnitTxn(ctx context.Context, conn *sql.Conn, u loadUnit) error {
	// Each unit has its own deterministic stream, so a seeded load is
	// reproducible whatever the worker interleaving.
	r := rand.New(rand.NewPCG(unitKey(l.seed, u.warehouse, u.district), 0x5eed))
	if l.seed == 0 {
		r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	// One transaction per unit: one log flush instead of one per batch
	// (BenchmarkSQL commits once per warehouse). A unit that fails half way
	// leaves nothing behind.
	if _, err := conn.ExecContext(ctx, "START TRANSACTION"); err != nil {
		return fmt.Errorf("tpcc prepare: %w", err)
	}
	var err error
	switch {
	case u.item:
		err = l.loadItems(ctx, conn, r)
	case u.district == 0:
		err = l.loadWarehouse(ctx, conn, r, u.warehouse)
	default:
		err = l.loadDistrict(ctx, conn, r, u)
	}
	if err == nil {
		_, err = conn.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		// The connection may be unusable after a cancel; ROLLBACK is best effort.
		conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		if u.item {
			return fmt.Errorf("tpcc prepare: load bmsql_item: %w", err)
		}
		return fmt.Errorf("tpcc prepare: load warehouse %d unit %d: %w", u.warehouse, u.district, err)
	}
	return nil
}

// unitDone records a committed unit: the item table or, with its last
// unit, a warehouse is marked loaded.
func (l *loader) unitDone(ctx context.Context, conn *sql.Conn, u loadUnit) error {
	if u.item {
		return markDone(ctx, l.names.on(conn), cfgItemDone)
	}
	l.mu.Lock()
	l.remaining[u.warehouse]--
	last := l.remaining[u.warehouse] == 0
	l.mu.Unlock()
	if last {
		return markDone(ctx, l.names.on(conn), cfgWarePrefix+strconv.Itoa(u.warehouse))
	}
	return nil
}

// newInserter is an inserter for the load: bulk when the server allows.
func (l *loader) newInserter(conn *sql.Conn, table, columns string, onRows func(int)) *inserter {
	if l.bulk {
		return newBulkInserter(conn, l.names.sql(table), columns, onRows)
	}
	return newInserter(conn, l.names.sql(table), columns, onRows)
}

func (l *loader) loadItems(ctx context.Context, conn *sql.Conn, r *rand.Rand) error {
	in := l.newInserter(conn, "bmsql_item", "i_id, i_name, i_price, i_data, i_im_id", l.progress)
	for i := 1; i <= l.scale.Items; i++ {
		in.row().int(i).astr(r, 14, 24).raw(cents(int64(uniform(r, 100, 10000)))).
			data(r).int(uniform(r, 1, 10000))
		if err := in.maybeFlush(ctx); err != nil {
			return err
		}
	}
	return in.flush(ctx)
}

// address appends street_1, street_2, city, state, zip.
func address(in *inserter, r *rand.Rand) *inserter {
	return in.astr(r, 10, 20).astr(r, 10, 20).astr(r, 10, 20).str(upper2(r)).zip(r)
}

func upper2(r *rand.Rand) string {
	return string([]byte{byte('A' + r.IntN(26)), byte('A' + r.IntN(26))})
}

func (l *loader) loadWarehouse(ctx context.Context, conn *sql.Conn, r *rand.Rand, wh int) error {
	in := l.newInserter(conn, "bmsql_warehouse",
		"w_id, w_ytd, w_tax, w_name, w_street_1, w_street_2, w_city, w_state, w_zip", l.progress)
	address(in.row().int(wh).raw(cents(int64(l.scale.Customers)*1000*districtsPerWarehouse)).raw(fraction4(uniform(r, 0, 2000))).astr(r, 6, 10), r)
	if err := in.flush(ctx); err != nil {
		return err
	}
	in = l.newInserter(conn, "bmsql_stock",
		"s_w_id, s_i_id, s_quantity, s_ytd, s_order_cnt, s_remote_cnt, s_data, "+
			"s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10", l.progress)
	for i := 1; i <= l.scale.Items; i++ {
		in.row().int(wh).int(i).int(uniform(r, 10, 100)).int(0).int(0).int(0).data(r)
		for range 10 {
			in.astr(r, 24, 24)
		}
		if err := in.maybeFlush(ctx); err != nil {
			return err
		}
	}
	return in.flush(ctx)
}

// loadDistrict loads a district unit: the district row, its customers with
// their history, and its orders, in that order (the unit's rand stream
// draws in that order too).
func (l *loader) loadDistrict(ctx context.Context, conn *sql.Conn, r *rand.Rand, u loadUnit) error {
	sc, wh, d := l.scale, u.warehouse, u.district
	in := l.newInserter(conn, "bmsql_district",
		"d_w_id, d_id, d_ytd, d_tax, d_next_o_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip", l.progress)
	address(in.row().int(wh).int(d).raw(cents(int64(sc.Customers)*1000)).raw(fraction4(uniform(r, 0, 2000))).
		int(sc.Customers+1).astr(r, 6, 10), r)
	if err := in.flush(ctx); err != nil {
		return err
	}
	if err := l.loadCustomers(ctx, conn, r, wh, d); err != nil {
		return err
	}
	return l.loadOrders(ctx, conn, r, u)
}

// loadCustomers loads district d's customers and a history row for each.
func (l *loader) loadCustomers(ctx context.Context, conn *sql.Conn, r *rand.Rand, wh, d int) error {
	sc := l.scale
	cust := l.newInserter(conn, "bmsql_customer",
		"c_w_id, c_d_id, c_id, c_discount, c_credit, c_last, c_first, c_credit_lim, c_balance, c_ytd_payment, "+
			"c_payment_cnt, c_delivery_cnt, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_middle, c_data", l.progress)
	hist := l.newInserter(conn, "bmsql_history",
		"h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data", l.progress)
	named := min(1000, sc.Customers)
	for c := 1; c <= sc.Customers; c++ {
		last := c - 1
		if c > named {
			last = NURand(r, aCLast, l.c.CLast, 0, 999)
		}
		credit := "GC"
		if r.IntN(10) == 0 {
			credit = "BC"
		}
		cust.row().int(wh).int(d).int(c).raw(fraction4(uniform(r, 0, 5000))).str(credit).str(LastName(last)).
			astr(r, 8, 16).raw("50000.00").raw("-10.00").raw("10.00").int(1).int(0)
		address(cust, r).nstr(r, 16, 16).str(l.now).str("OE").astr(r, 300, 500)
		hist.row().int(c).int(d).int(wh).int(d).int(wh).str(l.now).raw("10.00").astr(r, 12, 24)
		if err := cust.maybeFlush(ctx); err != nil {
			return err
		}
		if err := hist.maybeFlush(ctx); err != nil {
			return err
		}
	}
	if err := cust.flush(ctx); err != nil {
		return err
	}
	return hist.flush(ctx)
}

// loadOrders loads a district's orders, their lines and the undelivered
// ones' new-order rows; o_c_id is a random permutation of the customers
// (spec 4.3.3.1).
func (l *loader) loadOrders(ctx context.Context, conn *sql.Conn, r *rand.Rand, u loadUnit) error {
	sc, wh, d := l.scale, u.warehouse, u.district
	perm := r.Perm(sc.Customers)
	ord := l.newInserter(conn, "bmsql_oorder",
		"o_w_id, o_d_id, o_id, o_c_id, o_carrier_id, o_ol_cnt, o_all_local, o_entry_d", l.progress)
	nord := l.newInserter(conn, "bmsql_new_order", "no_w_id, no_d_id, no_o_id", l.progress)
	line := l.newInserter(conn, "bmsql_order_line",
		"ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_delivery_d, ol_amount, ol_supply_w_id, ol_quantity, ol_dist_info", l.progress)
	delivered := sc.delivered()
	counts := lineCounts(u.lineKey, sc.Customers)
	for o := 1; o <= sc.Customers; o++ {
		cnt := counts[o-1]
		ord.row().int(wh).int(d).int(o).int(perm[o-1] + 1)
		if o <= delivered {
			ord.int(uniform(r, 1, 10))
		} else {
			ord.raw("NULL")
			nord.row().int(wh).int(d).int(o)
		}
		ord.int(cnt).int(1).str(l.now)
		for n := 1; n <= cnt; n++ {
			line.row().int(wh).int(d).int(o).int(n).int(uniform(r, 1, sc.Items))
			if o <= delivered {
				line.str(l.now).raw("0.00")
			} else {
				line.raw("NULL").raw(cents(int64(uniform(r, 1, 999999))))
			}
			line.int(wh).int(5).astr(r, 24, 24)
			if err := line.maybeFlush(ctx); err != nil {
				return err
			}
		}
		if err := ord.maybeFlush(ctx); err != nil {
			return err
		}
		if err := nord.maybeFlush(ctx); err != nil {
			return err
		}
	}
	for _, in := range []*inserter{ord, nord, line} {
		if err := in.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}
