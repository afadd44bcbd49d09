package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// bmsql_config keys. The first four are BenchmarkSQL's own; the walab_* rows
// record the data set's scale and which units of the load are complete, so a
// later prepare resumes and a later run knows the load is whole.
const (
	cfgWarehouses = "warehouses"
	cfgCLast      = "nURandCLast"
	cfgCID        = "nURandCC_ID"
	cfgOLIID      = "nURandCI_ID"
	cfgItems      = "walab_items"
	cfgCustomers  = "walab_customers_per_district"
	cfgItemDone   = "walab_loaded_item"
	cfgWarePrefix = "walab_loaded_w_"
	cfgKeptSize   = "walab_kept_size" // a --keep-size run deleted old orders and payments
)

// loadedConfig is what bmsql_config says about the data set.
type loadedConfig struct {
	warehouses int
	c          Constants
	scale      scale
	walab      bool         // loaded by walab (has walab_* rows)
	itemLoaded bool         // item table complete
	done       map[int]bool // warehouses complete
	loaded     int          // len(done) within 1..warehouses
	fresh      bool         // written just now by a new load: the tables are empty
	keptSize   bool         // a KeepSize run deleted old orders and payments
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readConfig reads bmsql_config. A missing table is reported as such.
func readConfig(ctx context.Context, q queryer) (*loadedConfig, error) {
	rows, err := q.QueryContext(ctx, "SELECT cfg_name, cfg_value FROM bmsql_config")
	if err != nil {
		return nil, fmt.Errorf("tpcc: read bmsql_config (run prepare first?): %w", err)
	}
	defer rows.Close()
	cfg := &loadedConfig{scale: fullScale, done: map[int]bool{}}
	kv := map[string]string{}
	for rows.Next() {
		var k string
		var v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		if rest, ok := strings.CutPrefix(k, cfgWarePrefix); ok {
			if n, err := strconv.Atoi(rest); err == nil {
				cfg.done[n] = true
			}
			cfg.walab = true
			continue
		}
		kv[k] = v.String
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	num := func(key string, dst *int, lo, hi int) error {
		s, ok := kv[key]
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("tpcc: bmsql_config %s=%q: want an integer in %d..%d", key, s, lo, hi)
		}
		*dst = n
		return nil
	}
	for _, f := range []struct {
		key    string
		dst    *int
		lo, hi int
	}{
		{cfgWarehouses, &cfg.warehouses, 1, 1 << 20},
		{cfgCLast, &cfg.c.CLast, 0, aCLast},
		{cfgCID, &cfg.c.CID, 0, aCID},
		{cfgOLIID, &cfg.c.OLIID, 0, aOLIID},
		{cfgItems, &cfg.scale.Items, 1, fullScale.Items},
		{cfgCustomers, &cfg.scale.Customers, 10, fullScale.Customers},
	} {
		if err := num(f.key, f.dst, f.lo, f.hi); err != nil {
			return nil, err
		}
	}
	if _, ok := kv[cfgItems]; ok {
		cfg.walab = true
	}
	_, cfg.itemLoaded = kv[cfgItemDone]
	_, cfg.keptSize = kv[cfgKeptSize]
	for w := range cfg.done {
		if w >= 1 && w <= cfg.warehouses {
			cfg.loaded++
		}
	}
	return cfg, nil
}

// writeInitialConfig records a new load's size, scale and C-Load.
func writeInitialConfig(ctx context.Context, db sqlDoer, warehouses int, sc scale, c Constants) error {
	_, err := db.ExecContext(ctx, "INSERT INTO bmsql_config (cfg_name, cfg_value) VALUES (?,?),(?,?),(?,?),(?,?),(?,?),(?,?)",
		cfgWarehouses, strconv.Itoa(warehouses),
		cfgCLast, strconv.Itoa(c.CLast),
		cfgCID, strconv.Itoa(c.CID),
		cfgOLIID, strconv.Itoa(c.OLIID),
		cfgItems, strconv.Itoa(sc.Items),
		cfgCustomers, strconv.Itoa(sc.Customers))
	if err != nil {
		return fmt.Errorf("tpcc: write bmsql_config: %w", err)
	}
	return nil
}

// markDone records one completed unit of the load.
func markDone(ctx context.Context, conn sqlDoer, key string) error {
	_, err := conn.ExecContext(ctx, "REPLACE INTO bmsql_config (cfg_name, cfg_value) VALUES (?, '1')", key)
	if err != nil {
		return fmt.Errorf("tpcc: record %s: %w", key, err)
	}
	return nil
}
