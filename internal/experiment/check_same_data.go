package experiment

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
)

// tableChecksums reads the identity of a target's database: every base
// table's CHECKSUM TABLE, without the schema name (the two instances'
// databases may be named differently).
func tableChecksums(ctx context.Context, db *sql.DB) (Dataset, error) {
	rows, err := db.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'")
	if err != nil {
		return Dataset{}, err
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return Dataset{}, err
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Dataset{}, err
	}
	if len(tables) == 0 {
		return Dataset{}, fmt.Errorf("no tables in its database (the DSN names none, or the restore did not run)")
	}
	sort.Strings(tables)
	h := sha256.New()
	for _, t := range tables {
		var name string
		var sum sql.NullString
		if err := db.QueryRowContext(ctx, "CHECKSUM TABLE `"+strings.ReplaceAll(t, "`", "``")+"`").Scan(&name, &sum); err != nil {
			return Dataset{}, fmt.Errorf("CHECKSUM TABLE %s: %w", t, err)
		}
		if !sum.Valid {
			return Dataset{}, fmt.Errorf("CHECKSUM TABLE %s: no checksum (the table cannot be read)", t)
		}
		fmt.Fprintf(h, "%s %s\n", t, sum.String)
	}
	return Dataset{Tables: len(tables), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// checkSameData: every target holds the same data (seed 000 restores one
// backup into both instances), and the same as every earlier run's
// targets held at their checks: both arms start from the same data.
func (e *Executor) checkSameData(ctx context.Context, c Check) (string, error) {
	got := map[string]Dataset{}
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
	if e.state.Datasets == nil {
		e.state.Datasets = map[string]map[string]Dataset{}
	}
	e.state.Datasets[e.setup] = got
	first := got[c.Targets[0]]
	for _, name := range c.Targets[1:] {
		if got[name] != first {
			return "", fmt.Errorf("target %s holds other data (%s) than %s (%s): the reset did not restore the same backup into both", name, got[name], c.Targets[0], first)
		}
	}
	msg := fmt.Sprintf("%s: %s", strings.Join(c.Targets, ", "), first)
	for _, setup := range slices.Sorted(maps.Keys(e.state.Datasets)) {
		if setup == e.setup {
			continue
		}
		for name, d := range e.state.Datasets[setup] {
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
	validate: func(_ *Plan, c Check) []string { return needTargets(c) },
	timeout:  10 * time.Minute, // CHECKSUM TABLE reads every row
	run: func(e *Executor, ctx context.Context, c Check, _ *Run) (string, error) {
		return e.checkSameData(ctx, c)
	},
}

func needTargets(c Check) []string {
	if len(c.Targets) == 0 {
		return []string{"targets missing"}
	}
	return nil
}
