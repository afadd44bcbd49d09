package innodb

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/walab/walab/internal/promql"
)

// settingsLabels are the WA-relevant settings exported as info labels: each
// changes how many bytes reach the drive per transaction.
var settingsLabels = []string{"innodb_flush_method", "innodb_doublewrite", "innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin", "version"}

var (
	settingsDesc = prometheus.NewDesc(namespace+"_mysql_settings_info",
		"Server settings that change write amplification (value 1; the settings are labels).",
		append([]string{"target"}, "flush_method", "doublewrite", "flush_log_at_trx_commit", "sync_binlog", "log_bin", "version"), nil)
	ioCapacityDesc = prometheus.NewDesc(namespace+"_innodb_io_capacity",
		"innodb_io_capacity: background flushing IOPS budget.", []string{"target"}, nil)
	ioCapacityMaxDesc = prometheus.NewDesc(namespace+"_innodb_io_capacity_max",
		"innodb_io_capacity_max: flushing IOPS ceiling under pressure.", []string{"target"}, nil)
	pageSizeDesc = prometheus.NewDesc(namespace+"_innodb_page_size_bytes",
		"innodb_page_size.", []string{"target"}, nil)
	bufferPoolDesc = prometheus.NewDesc(namespace+"_innodb_buffer_pool_size_bytes",
		"innodb_buffer_pool_size.", []string{"target"}, nil)
	logCapacityDesc = prometheus.NewDesc(promql.InnoDBLogCapacity,
		"Redo log capacity: innodb_redo_log_capacity (MySQL 8.0.30+), else innodb_log_file_size x innodb_log_files_in_group (1 file on MariaDB 10.5+).",
		[]string{"target"}, nil)
)

// GlobalVariables scrapes the SHOW GLOBAL VARIABLES that matter for WA.
type GlobalVariables struct{}

func (GlobalVariables) Name() string { return "global_variables" }

func (GlobalVariables) Scrape(ctx context.Context, db *sql.DB, target string, ch chan<- prometheus.Metric) error {
	rows, err := db.QueryContext(ctx, globalVariablesQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	vars := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		vars[strings.ToLower(k)] = v
	}
	if err := rows.Err(); err != nil {
		return err
	}
	emitSettings(vars, target, ch)
	emitSeedSettings(vars, target, ch)
	return nil
}

// globalVariablesQuery reads the WA settings and the seed variables at once.
var globalVariablesQuery = VariablesQuery(append([]string{
	"innodb_flush_method", "innodb_doublewrite", "innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin", "version",
	"innodb_io_capacity", "innodb_io_capacity_max", "innodb_page_size", "innodb_buffer_pool_size",
	"innodb_redo_log_capacity", "innodb_log_file_size", "innodb_log_files_in_group"}, SeedVariables...))

func emitSettings(vars map[string]string, target string, ch chan<- prometheus.Metric) {
	labels := []string{target}
	for _, k := range settingsLabels {
		labels = append(labels, vars[k])
	}
	ch <- prometheus.MustNewConstMetric(settingsDesc, prometheus.GaugeValue, 1, labels...)
	num := func(d *prometheus.Desc, key string) {
		if v, err := strconv.ParseFloat(vars[key], 64); err == nil {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, target)
		}
	}
	num(ioCapacityDesc, "innodb_io_capacity")
	num(ioCapacityMaxDesc, "innodb_io_capacity_max")
	num(pageSizeDesc, "innodb_page_size")
	num(bufferPoolDesc, "innodb_buffer_pool_size")
	if c, ok := LogCapacity(vars); ok {
		ch <- prometheus.MustNewConstMetric(logCapacityDesc, prometheus.GaugeValue, c, target)
	}
}

// LogCapacity derives the redo capacity from server variables (lower-case names).
func LogCapacity(vars map[string]string) (float64, bool) {
	if v, err := strconv.ParseFloat(vars["innodb_redo_log_capacity"], 64); err == nil && v > 0 {
		return v, true
	}
	size, err := strconv.ParseFloat(vars["innodb_log_file_size"], 64)
	if err != nil || size <= 0 {
		return 0, false
	}
	files := 1.0
	if n, err := strconv.ParseFloat(vars["innodb_log_files_in_group"], 64); err == nil && n > 0 {
		files = n
	}
	return size * files, true
}
