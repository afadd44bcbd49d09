// Package innodb reads the InnoDB write path of a MySQL or MariaDB server:
// SHOW GLOBAL STATUS counters, SHOW ENGINE INNODB STATUS (redo and
// checkpoint), and the SHOW GLOBAL VARIABLES that change write amplification.
// Each source is a Scraper, after mysqld_exporter.
package innodb

import (
	"strings"

	"github.com/walab/walab/internal/promql"
)

// statusMetric maps one SHOW GLOBAL STATUS variable to a metric.
type statusMetric struct {
	name    string // metric name without the walab_ prefix
	help    string
	counter bool
	label   [2]string // optional constant label name/value (e.g. operation=inserted)
}

// globalStatus lists the status variables walab exports; names are the
// server's, case-insensitively. Absent variables (version differences:
// MariaDB has Binlog_bytes_written, MySQL does not) are simply skipped.
var globalStatus = map[string]statusMetric{
	"innodb_data_written":   {name: unprefixed(promql.InnoDBDataWrittenBytes), help: "Bytes InnoDB wrote to its data files, doublewrite and redo included (Innodb_data_written).", counter: true},
	"innodb_data_writes":    {name: "innodb_data_writes_total", help: "Write operations InnoDB issued to its files (Innodb_data_writes).", counter: true},
	"innodb_data_fsyncs":    {name: "innodb_data_fsyncs_total", help: "fsync() calls InnoDB made (Innodb_data_fsyncs).", counter: true},
	"innodb_os_log_written": {name: unprefixed(promql.InnoDBOSLogWrittenBytes), help: "Bytes written to the redo log (Innodb_os_log_written).", counter: true},
	"innodb_log_writes":     {name: "innodb_log_writes_total", help: "Physical writes to the redo log (Innodb_log_writes).", counter: true},
	"innodb_pages_written":  {name: "innodb_pages_written_total", help: "Pages InnoDB wrote (Innodb_pages_written).", counter: true},
	"innodb_dblwr_pages_written": {name: "innodb_doublewrite_pages_written_total",
		help: "Pages written to the doublewrite buffer (Innodb_dblwr_pages_written).", counter: true},
	"innodb_dblwr_writes":              {name: "innodb_doublewrite_writes_total", help: "Doublewrite write operations (Innodb_dblwr_writes).", counter: true},
	"innodb_buffer_pool_pages_data":    {name: "innodb_buffer_pool_pages", help: "Buffer pool pages by state.", label: [2]string{"state", "data"}},
	"innodb_buffer_pool_pages_dirty":   {name: "innodb_buffer_pool_pages", help: "Buffer pool pages by state.", label: [2]string{"state", "dirty"}},
	"innodb_buffer_pool_pages_free":    {name: "innodb_buffer_pool_pages", help: "Buffer pool pages by state.", label: [2]string{"state", "free"}},
	"innodb_buffer_pool_pages_total":   {name: "innodb_buffer_pool_pages", help: "Buffer pool pages by state.", label: [2]string{"state", "total"}},
	"innodb_buffer_pool_pages_flushed": {name: "innodb_buffer_pool_pages_flushed_total", help: "Buffer pool pages flushed to disk (Innodb_buffer_pool_pages_flushed).", counter: true},
	"innodb_rows_inserted":             {name: "innodb_rows_total", help: "Rows InnoDB processed, by operation.", counter: true, label: [2]string{"operation", "inserted"}},
	"innodb_rows_updated":              {name: "innodb_rows_total", help: "Rows InnoDB processed, by operation.", counter: true, label: [2]string{"operation", "updated"}},
	"innodb_rows_deleted":              {name: "innodb_rows_total", help: "Rows InnoDB processed, by operation.", counter: true, label: [2]string{"operation", "deleted"}},
	"innodb_rows_read":                 {name: "innodb_rows_total", help: "Rows InnoDB processed, by operation.", counter: true, label: [2]string{"operation", "read"}},
	// Server-side throughput, so a run driven by a client walab does not
	// instrument (BenchmarkSQL, sysbench) still has a transaction rate.
	"com_commit":           {name: unprefixed(promql.MySQLCommands), help: "Statements the server executed, by command (Com_commit, Com_rollback): explicit COMMITs are the transactions of a client such as sysbench or BenchmarkSQL.", counter: true, label: [2]string{"command", "commit"}},
	"com_rollback":         {name: unprefixed(promql.MySQLCommands), help: "Statements the server executed, by command (Com_commit, Com_rollback): explicit COMMITs are the transactions of a client such as sysbench or BenchmarkSQL.", counter: true, label: [2]string{"command", "rollback"}},
	"questions":            {name: "mysql_queries_total", help: "Statements clients sent to the server (Questions).", counter: true},
	"binlog_bytes_written": {name: "mysql_binlog_written_bytes_total", help: "Bytes written to the binary log (MariaDB Binlog_bytes_written).", counter: true},
	// MariaDB publishes its checkpoint limit; MySQL only has the redo capacity variables.
	"innodb_checkpoint_max_age": {name: "innodb_checkpoint_max_age_bytes", help: "Checkpoint age at which InnoDB forces flushing (MariaDB Innodb_checkpoint_max_age)."},
}

// unprefixed is a promql name without the namespace the scraper adds.
func unprefixed(name string) string { return strings.TrimPrefix(name, namespace+"_") }
