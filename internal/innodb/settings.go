package innodb

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/walab/walab/internal/promql"
)

// SeedVariables are the server variables the seeds set and tune: seed
// 000's my.cnf (files, buffers, flushing, binlog, connections, I/O
// threads, flush neighbours, page cleaners, adaptive hash index), seed
// 003's two spin-lock knobs, and the durability settings every WA comparison depends on.
// The exporter reports them (walab_mysql_setting*) and walab experiment
// fingerprints them; a server lacking one (MariaDB vs MySQL) just omits it.
var SeedVariables = []string{
	"datadir", "version_comment",
	"innodb_adaptive_hash_index", "innodb_buffer_pool_instances", "innodb_buffer_pool_size",
	"innodb_doublewrite", "innodb_file_per_table", "innodb_flush_log_at_trx_commit",
	"innodb_flush_method", "innodb_flush_neighbors", "innodb_io_capacity", "innodb_io_capacity_max",
	"innodb_log_buffer_size", "innodb_log_file_size", "innodb_log_files_in_group", "innodb_lru_scan_depth",
	"innodb_open_files", "innodb_page_cleaners", "innodb_page_size", "innodb_purge_threads",
	"innodb_read_io_threads", "innodb_spin_wait_delay", "innodb_spin_wait_pause_multiplier",
	"innodb_sync_spin_loops", "innodb_use_native_aio", "innodb_write_io_threads",
	"binlog_expire_logs_seconds", "log_bin", "max_connections", "performance_schema", "sync_binlog",
	"table_open_cache", "table_open_cache_instances", "thread_cache_size", "transaction_isolation", "tx_isolation",
	// Seed 000's my.cnf beyond InnoDB: character set, time zone, ssl=0,
	// undo truncation, the connection and statement limits, sql_mode; and
	// the buffer pool's dump at shutdown / load at startup (seed 002),
	// which decide whether a run after a restart starts warm.
	"back_log", "character_set_server", "collation_server", "default_authentication_plugin", "have_ssl",
	"innodb_buffer_pool_dump_at_shutdown", "innodb_buffer_pool_dump_pct", "innodb_buffer_pool_load_at_startup",
	"innodb_numa_interleave", "innodb_undo_log_truncate", "max_connect_errors", "max_prepared_stmt_count",
	"sql_mode", "time_zone",
}

var variableName = regexp.MustCompile(`^[a-z_]+$`)

// VariablesQuery is SHOW GLOBAL VARIABLES for the given names. SHOW takes
// no placeholders on every server, so the names are written into the
// statement; they come from walab's own lists, and anything but lower-case
// letters and underscores is refused (a programming error).
func VariablesQuery(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		if !variableName.MatchString(n) {
			panic(fmt.Sprintf("innodb: variable name %q is not [a-z_]+", n))
		}
		quoted[i] = "'" + n + "'"
	}
	return "SHOW GLOBAL VARIABLES WHERE Variable_name IN (" + strings.Join(quoted, ",") + ")"
}

var (
	settingDesc = prometheus.NewDesc(promql.MySQLSetting,
		"A server variable the seeds set or tune (innodb.SeedVariables), numeric: its value in the server's own unit (bytes for sizes, seconds for *_seconds), ON/OFF as 1/0. Absent when the server lacks the variable.",
		[]string{"target", "name"}, nil)
	settingInfoDesc = prometheus.NewDesc(promql.MySQLSettingInfo,
		"A server variable the seeds set whose value is not a number (e.g. innodb_flush_method, transaction_isolation): always 1, the value is a label.",
		[]string{"target", "name", "value"}, nil)
)

// emitSeedSettings exports the seed variables found in vars.
func emitSeedSettings(vars map[string]string, target string, ch chan<- prometheus.Metric) {
	for _, name := range SeedVariables {
		v, ok := vars[name]
		if !ok {
			continue
		}
		if f, ok := settingNumber(v); ok {
			ch <- prometheus.MustNewConstMetric(settingDesc, prometheus.GaugeValue, f, target, name)
			continue
		}
		ch <- prometheus.MustNewConstMetric(settingInfoDesc, prometheus.GaugeValue, 1, target, name, cutLabel(v))
	}
}

// settingNumber reads a numeric setting; ON/OFF (and TRUE/FALSE) are 1/0.
func settingNumber(v string) (float64, bool) {
	switch strings.ToUpper(v) {
	case "ON", "TRUE":
		return 1, true
	case "OFF", "FALSE":
		return 0, true
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// cutLabel bounds a label value (a datadir path, a version comment).
func cutLabel(v string) string {
	if len(v) > 128 {
		return v[:128]
	}
	return v
}
