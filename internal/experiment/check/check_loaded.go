package check

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
)

func (e *Env) checkLoaded(ctx context.Context, c plan.Check) (string, error) {
	var found []string
	for _, name := range c.Targets {
		db, err := e.openTarget(name)
		if err != nil {
			return "", err
		}
		msg, err := loaded(ctx, db, c.Tables)
		db.Close()
		if err != nil {
			return "", fmt.Errorf("target %s: %w", name, err)
		}
		found = append(found, name+": "+msg)
	}
	return strings.Join(found, "; "), nil
}

// loaded checks that the tables have rows; without tables, that a TPC-C
// dataset's bmsql_config names its warehouses, or else that the database
// holds a table with rows.
func loaded(ctx context.Context, db *sql.DB, tables []string) (string, error) {
	if err := db.PingContext(ctx); err != nil {
		return "", fmt.Errorf("unreachable: %w", err)
	}
	if len(tables) > 0 {
		for _, t := range tables {
			var one int
			err := db.QueryRowContext(ctx, "SELECT 1 FROM `"+strings.ReplaceAll(t, "`", "``")+"` LIMIT 1").Scan(&one)
			if err == sql.ErrNoRows {
				return "", fmt.Errorf("table %s is empty", t)
			}
			if err != nil {
				return "", fmt.Errorf("table %s: %w", t, err)
			}
		}
		return "rows in " + strings.Join(tables, ", "), nil
	}
	var wh string
	err := db.QueryRowContext(ctx, "SELECT cfg_value FROM bmsql_config WHERE cfg_name = 'warehouses'").Scan(&wh)
	if err == nil {
		return "bmsql_config warehouses=" + wh, nil
	}
	var name string
	var rows int64
	err = db.QueryRowContext(ctx, `SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_ROWS > 0 ORDER BY TABLE_ROWS DESC LIMIT 1`).Scan(&name, &rows)
	if err == sql.ErrNoRows {
		return "", fmt.Errorf("no bmsql_config and no table with rows in the database")
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("no bmsql_config; largest table %s ~%d rows", name, rows), nil
}

var loadedCheck = checkKind{
	keys: "targets, tables",
	validate: func(_ *plan.Plan, c plan.Check) []string {
		return need(len(c.Targets) != 0, "targets missing")
	},
	run: runOf((*Env).checkLoaded),
}

func init() { register("target_loaded", loadedCheck) }
