package check

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// tableChecksums reads the identity of a target's database: every base
// table's CHECKSUM TABLE, without the schema name (the two instances'
// databases may be named differently).
func tableChecksums(ctx context.Context, db *sql.DB) (state.Dataset, error) {
	rows, err := db.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'")
	if err != nil {
		return state.Dataset{}, err
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return state.Dataset{}, err
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return state.Dataset{}, err
	}
	if len(tables) == 0 {
		return state.Dataset{}, fmt.Errorf("no tables in its database (the DSN names none, or the restore did not run)")
	}
	sort.Strings(tables)
	h := sha256.New()
	for _, t := range tables {
		var name string
		var sum sql.NullString
		if err := db.QueryRowContext(ctx, "CHECKSUM TABLE `"+strings.ReplaceAll(t, "`", "``")+"`").Scan(&name, &sum); err != nil {
			return state.Dataset{}, fmt.Errorf("CHECKSUM TABLE %s: %w", t, err)
		}
		if !sum.Valid {
			return state.Dataset{}, fmt.Errorf("CHECKSUM TABLE %s: no checksum (the table cannot be read)", t)
		}
		fmt.Fprintf(h, "%s %s\n", t, sum.String)
	}
	return state.Dataset{Tables: len(tables), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// checkSameData: every target holds the same data (seed 000 restores one
// backup into both instances), and the same as every earlier run's
// targets held at their checks: both arms start from the same data.
func (e *Env) checkSameData(ctx context.Context, c plan.Check) (string, error) {
	got := map[string]state.Dataset{}
	for _, name := range c.Targets {
		db, err := e.openTarget(name)
		if err != nil {
			return "", err
		}
		d, err := tableChecksums(ctx, db)
		db.Close()
		if err != nil {
			return "", fmt.Errorf("target %s: %w", name, err)
		}
		got[name] = d
	}
	if e.State.Datasets == nil {
		e.State.Datasets = map[string]map[string]state.Dataset{}
	}
	e.State.Datasets[e.Setup] = got
	first := got[c.Targets[0]]
	for _, name := range c.Targets[1:] {
		if got[name] != first {
			return "", fmt.Errorf("target %s holds other data (%s) than %s (%s): the reset did not restore the same backup into both", name, got[name], c.Targets[0], first)
		}
	}
	msg := fmt.Sprintf("%s: %s", strings.Join(c.Targets, ", "), first)
	for _, setup := range slices.Sorted(maps.Keys(e.State.Datasets)) {
		if setup == e.Setup {
			continue
		}
		for name, d := range e.State.Datasets[setup] {
			if d != first {
				return "", fmt.Errorf("%s, but %s's %s held %s at its checks: the arms do not start from the same data", msg, strings.TrimSuffix(setup, "/"), name, d)
			}
		}
		msg += ", as at " + strings.TrimSuffix(setup, "/") + "'s checks"
	}
	return msg, nil
}

var sameDataCheck = checkKind{
	keys:     "targets",
	validate: func(_ *plan.Plan, c plan.Check) []string { return needTargets(c) },
	timeout:  10 * time.Minute, // the least budget; CHECKSUM TABLE reads every row
	scale:    (*Env).sameDataBudget,
	run:      runOf((*Env).checkSameData),
}

func init() { register("same_data", sameDataCheck) }

// checksumBytesPerSecond is the rate same_data's budget assumes CHECKSUM
// TABLE reads a table at (one table at a time, one thread, from a cold
// buffer pool): a slow NVMe read, so that the budget is not the bound.
const checksumBytesPerSecond = 100e6

// sameDataBudget is the time CHECKSUM TABLE needs over every target's
// data, from its tables' size (information_schema's data + index length),
// twice over at checksumBytesPerSecond: seed 000's 4,050 warehouses, about
// 800 GB in both instances, get 4 h 27 min.
func (e *Env) sameDataBudget(ctx context.Context, c plan.Check) (time.Duration, error) {
	var total float64
	for _, name := range c.Targets {
		db, err := e.openTarget(name)
		if err != nil {
			return 0, err
		}
		var n sql.NullFloat64
		err = db.QueryRowContext(ctx, "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'").Scan(&n)
		db.Close()
		if err != nil {
			return 0, fmt.Errorf("target %s: size of its tables: %w", name, err)
		}
		total += n.Float64
	}
	return checksumBudget(total), nil
}

// checksumBudget: twice the time to read bytes at checksumBytesPerSecond.
func checksumBudget(bytes float64) time.Duration {
	return time.Duration(2 * bytes / checksumBytesPerSecond * float64(time.Second)).Round(time.Second)
}

func needTargets(c plan.Check) []string {
	if len(c.Targets) == 0 {
		return []string{"targets missing"}
	}
	return nil
}
