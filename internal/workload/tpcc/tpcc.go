// Package tpcc is a TPC-C workload compatible with BenchmarkSQL 5.0: the
// bmsql_* schema and its bmsql_config table, the five transaction profiles of
// the TPC-C specification, a parallel resumable loader, and the consistency
// conditions of clause 3.3.2 as SQL.
package tpcc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/walab/walab/internal/workload"
)

// Transaction type labels (metrics and reports).
const (
	TxNewOrder    = "new_order"
	TxPayment     = "payment"
	TxOrderStatus = "order_status"
	TxDelivery    = "delivery"
	TxStockLevel  = "stock_level"
)

var txTypes = []string{TxNewOrder, TxPayment, TxOrderStatus, TxDelivery, TxStockLevel}

// Weights are the transaction mix in percent; they must sum to 100.
type Weights struct {
	NewOrder, Payment, OrderStatus, Delivery, StockLevel int
}

// DefaultWeights is BenchmarkSQL's and the spec's minimum mix.
var DefaultWeights = Weights{NewOrder: 45, Payment: 43, OrderStatus: 4, Delivery: 4, StockLevel: 4}

// Validate refuses negative weights and sums other than 100.
func (w Weights) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"newOrderWeight", w.NewOrder}, {"paymentWeight", w.Payment}, {"orderStatusWeight", w.OrderStatus},
		{"deliveryWeight", w.Delivery}, {"stockLevelWeight", w.StockLevel}} {
		if f.v < 0 || f.v > 100 {
			return fmt.Errorf("%s=%d: must be in 0..100", f.name, f.v)
		}
	}
	if s := w.NewOrder + w.Payment + w.OrderStatus + w.Delivery + w.StockLevel; s != 100 {
		return fmt.Errorf("transaction weights sum to %d, must be 100", s)
	}
	return nil
}

// Options configure the workload. The zero value of each field means the
// BenchmarkSQL default.
type Options struct {
	// Warehouses to load (Prepare) or to use (run: at most the loaded count;
	// 0 means all loaded warehouses).
	Warehouses int
	// TerminalWarehouseFixed binds terminal i to warehouse i%W+1; otherwise
	// each transaction picks a random home warehouse.
	TerminalWarehouseFixed bool
	Weights                Weights // zero value: DefaultWeights
	// KeyingTimes and ThinkTimes enable the spec's pauses (clause 5.2.5),
	// scaled by the multipliers (0 means 1).
	KeyingTimes, ThinkTimes                   bool
	KeyingTimeMultiplier, ThinkTimeMultiplier float64
	// Seed makes the load data and the C-Run choice reproducible (0: random).
	Seed uint64
	// KeepSize holds the growing tables' size: each Delivery also
	// deletes, per district it delivers, the delivered orders (and their
	// order lines) older than the newest as many as the load made, and as
	// many of the oldest payments (history rows) as the run committed
	// since the last Delivery. Off by default: the spec's database grows,
	// and BenchmarkSQL's does. A run with it records walab_kept_size in
	// bmsql_config, and Check then reports the conditions on deleted rows
	// as not applicable (keepsize.go).
	KeepSize bool

	// scale shrinks the data set; only tests set it (see scale).
	scale scale
}

// scale sizes the per-warehouse data. Production loads always use fullScale;
// tests shrink it to keep the suite quick.
type scale struct {
	Items     int // rows of bmsql_item and of bmsql_stock per warehouse
	Customers int // customers (and initial orders) per district
}

var fullScale = scale{Items: 100000, Customers: 3000}

// newOrders is the number of undelivered orders per district at load: the
// last 900 of 3000 (spec 4.3.3.1), scaled.
func (s scale) newOrders() int { return s.Customers * 900 / 3000 }

// delivered is the highest o_id delivered at load (2100 at full scale).
func (s scale) delivered() int { return s.Customers - s.newOrders() }

// Workload is the TPC-C workload. Safe for concurrent use by terminals.
type Workload struct {
	opts  Options
	names tableNames // this copy's table names (sysbench-tpcc's --tables)

	mu    sync.Mutex
	state *runState // set by Init, or lazily by the first transaction

	// paymentsToTrim counts the history rows this workload's Payments
	// committed that no Delivery has deleted yet (Options.KeepSize).
	paymentsToTrim atomic.Int64
}

// runState is what the run needs from the loaded database.
type runState struct {
	warehouses int       // warehouses this run uses
	loaded     int       // warehouses the load made
	scale      scale     // as loaded
	load       Constants // C-Load from bmsql_config
	run        Constants // C-Run derived from it
}

var (
	_ workload.SQL            = (*Workload)(nil)
	_ workload.SQLInitializer = (*Workload)(nil)
)

// New validates opts and returns the workload.
func New(opts Options) (*Workload, error) {
	if opts.Weights == (Weights{}) {
		opts.Weights = DefaultWeights
	}
	if err := opts.Weights.Validate(); err != nil {
		return nil, err
	}
	if opts.Warehouses < 0 {
		return nil, fmt.Errorf("warehouses=%d: must not be negative", opts.Warehouses)
	}
	if opts.KeyingTimeMultiplier < 0 || opts.ThinkTimeMultiplier < 0 {
		return nil, errors.New("keying/think time multipliers must not be negative")
	}
	if opts.KeyingTimeMultiplier == 0 {
		opts.KeyingTimeMultiplier = 1
	}
	if opts.ThinkTimeMultiplier == 0 {
		opts.ThinkTimeMultiplier = 1
	}
	if opts.scale == (scale{}) {
		opts.scale = fullScale
	}
	return &Workload{opts: opts}, nil
}

// Name is the workload label.
func (w *Workload) Name() string { return "tpcc" }

// TxTypes lists the five transaction labels.
func (w *Workload) TxTypes() []string { return append([]string(nil), txTypes...) }

// Cleanup drops the ten tables of this schema and of every copy of it
// (sysbench-tpcc's --tables) walab made in the database: a cleanup with
// another --tables than the prepare's leaves none behind (dropEvery).
func (w *Workload) Cleanup(ctx context.Context, db *sql.DB) error {
	if err := dropEvery(ctx, db); err != nil {
		return err
	}
	w.forget()
	return nil
}

// forget drops the state read from bmsql_config.
func (w *Workload) forget() {
	w.mu.Lock()
	w.state = nil
	w.mu.Unlock()
}

// Init reads bmsql_config and fixes the run's C constants. Call it before a
// run to fail fast; otherwise the first transaction does it.
func (w *Workload) Init(ctx context.Context, db *sql.DB) error {
	_, err := w.ensureStateDB(ctx, db)
	return err
}

// ensureState loads the run state once per workload.
func (w *Workload) ensureState(ctx context.Context, conn *sql.Conn) (*runState, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.state != nil {
		return w.state, nil
	}
	cfg, err := readConfig(ctx, w.names.on(conn))
	if err != nil {
		return nil, err
	}
	if cfg.warehouses == 0 {
		return nil, errors.New("tpcc: bmsql_config has no warehouses row: run prepare first")
	}
	if cfg.walab && cfg.loaded < cfg.warehouses {
		return nil, fmt.Errorf("tpcc: the load is incomplete (%d of %d warehouses loaded): run prepare again to finish it", cfg.loaded, cfg.warehouses)
	}
	if cfg.walab && !cfg.itemLoaded {
		return nil, errors.New("tpcc: the load is incomplete (bmsql_item not loaded): run prepare again to finish it")
	}
	n := w.opts.Warehouses
	if n == 0 {
		n = cfg.warehouses
	}
	if n > cfg.warehouses {
		// BenchmarkSQL's own rule: a run may use fewer warehouses, never more.
		return nil, fmt.Errorf("tpcc: warehouses=%d is more than the %d loaded", n, cfg.warehouses)
	}
	r := rand.New(rand.NewPCG(w.opts.Seed, 0x7e57c0de))
	if w.opts.Seed == 0 {
		r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if w.opts.KeepSize {
		if err := markDone(ctx, w.names.on(conn), cfgKeptSize); err != nil {
			return nil, err
		}
	}
	w.state = &runState{warehouses: n, loaded: cfg.warehouses, scale: cfg.scale, load: cfg.c, run: NewRunConstants(r, cfg.c)}
	return w.state, nil
}

// ensureStateDB is ensureState on a connection of db.
func (w *Workload) ensureStateDB(ctx context.Context, db *sql.DB) (*runState, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return w.ensureState(ctx, conn)
}
