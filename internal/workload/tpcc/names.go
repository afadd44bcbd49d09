package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// tableNames names one copy's tables. sysbench-tpcc's --tables=N loads N
// independent TPC-C schemas in one database, each table's name suffixed
// with its copy's number 1..N (tpcc_common.lua: "warehouse" .. table_num);
// loadgen suffixes BenchmarkSQL's names the same way (bmsql_warehouse1 ..
// bmsql_warehouseN). The zero value is BenchmarkSQL's own names, unsuffixed.
type tableNames struct{ suffix string }

func copyNames(k int) tableNames { return tableNames{suffix: strconv.Itoa(k)} }

// tableRef is a table name in walab's SQL: every table is bmsql_<word>.
var tableRef = regexp.MustCompile(`\bbmsql_[a-z_]+`)

// sql is q with this copy's table names.
func (n tableNames) sql(q string) string {
	if n.suffix == "" {
		return q
	}
	return tableRef.ReplaceAllStringFunc(q, func(t string) string { return t + n.suffix })
}

// sqlDoer is what *sql.DB and *sql.Conn share.
type sqlDoer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// on is d with every statement's table names this copy's.
func (n tableNames) on(d sqlDoer) sqlDoer { return renamed{d, n} }

type renamed struct {
	d sqlDoer
	n tableNames
}

func (r renamed) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return r.d.QueryContext(ctx, r.n.sql(q), args...)
}

func (r renamed) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return r.d.ExecContext(ctx, r.n.sql(q), args...)
}

// walabTable: a table walab's tpcc makes, one schema's (bmsql_warehouse)
// or a copy's (bmsql_warehouse1 .. bmsql_warehouse1000: no leading zero).
var walabTable = regexp.MustCompile(`^(bmsql_[a-z_]+?)([1-9][0-9]{0,3})?$`)

// dropEvery drops every table of every copy walab's tpcc made in the
// database, whatever --tables the cleanup was given: the tables are
// looked up once in information_schema, children before parents, so that
// only what exists is dropped.
func dropEvery(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'bmsql\_%'`)
	if err != nil {
		return fmt.Errorf("listing the tpcc tables: %w", err)
	}
	defer rows.Close()
	rank := map[string]int{}
	for i, t := range Tables {
		rank[t] = i
	}
	var drop []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("listing the tpcc tables: %w", err)
		}
		if m := walabTable.FindStringSubmatch(name); m != nil {
			if _, ours := rank[m[1]]; ours && (m[2] == "" || mustAtoi(m[2]) <= MaxCopies) {
				drop = append(drop, name)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("listing the tpcc tables: %w", err)
	}
	base := func(n string) int { return rank[walabTable.FindStringSubmatch(n)[1]] }
	slices.SortFunc(drop, func(a, b string) int { return base(b) - base(a) })
	for len(drop) > 0 {
		batch := drop[:min(len(drop), 100)]
		drop = drop[len(batch):]
		if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS `"+strings.Join(batch, "`, `")+"`"); err != nil {
			return fmt.Errorf("drop %s: %w", strings.Join(batch, ", "), err)
		}
	}
	return nil
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
