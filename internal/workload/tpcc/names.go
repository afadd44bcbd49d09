package tpcc

import (
	"context"
	"database/sql"
	"regexp"
	"strconv"
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
