package innodb

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/walab/walab/internal/promql"
)

const namespace = promql.Prefix

// Scraper reads one source of one server. Each runs on its own; a failing
// scraper does not stop the others of the same target.
type Scraper interface {
	Name() string
	Scrape(ctx context.Context, db *sql.DB, target string, ch chan<- prometheus.Metric) error
}

// Scrapers returns walab's scrapers in a fixed order.
func Scrapers() []Scraper {
	return []Scraper{GlobalStatus{}, EngineStatusScraper{}, GlobalVariables{}}
}

// descCache builds each descriptor once; scrapes only look them up.
var statusDescs = func() map[string]*prometheus.Desc {
	m := map[string]*prometheus.Desc{}
	for key, sm := range globalStatus {
		labels := []string{"target"}
		if sm.label[0] != "" {
			labels = append(labels, sm.label[0])
		}
		m[key] = prometheus.NewDesc(namespace+"_"+sm.name, sm.help, labels, nil)
	}
	return m
}()

// GlobalStatus scrapes SHOW GLOBAL STATUS.
type GlobalStatus struct{}

func (GlobalStatus) Name() string { return "global_status" }

func (GlobalStatus) Scrape(ctx context.Context, db *sql.DB, target string, ch chan<- prometheus.Metric) error {
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return err
		}
		key := strings.ToLower(name)
		sm, ok := globalStatus[key]
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return fmt.Errorf("status %s=%q: %w", name, value, err)
		}
		vt := prometheus.GaugeValue
		if sm.counter {
			vt = prometheus.CounterValue
		}
		labels := []string{target}
		if sm.label[0] != "" {
			labels = append(labels, sm.label[1])
		}
		ch <- prometheus.MustNewConstMetric(statusDescs[key], vt, v, labels...)
	}
	return rows.Err()
}

var (
	lsnDesc = prometheus.NewDesc(namespace+"_innodb_lsn_bytes",
		"Current redo log sequence number (bytes of redo generated since the server was created).", []string{"target"}, nil)
	checkpointLSNDesc = prometheus.NewDesc(namespace+"_innodb_checkpoint_lsn_bytes",
		"Redo log sequence number of the last checkpoint.", []string{"target"}, nil)
	checkpointAgeDesc = prometheus.NewDesc(promql.InnoDBCheckpointAge,
		"Redo written since the last checkpoint; near the redo capacity InnoDB stalls writes to flush.", []string{"target"}, nil)
	historyListDesc = prometheus.NewDesc(namespace+"_innodb_history_list_length",
		"Undo log records not yet purged (purge lag).", []string{"target"}, nil)
	pendingIODesc = prometheus.NewDesc(namespace+"_innodb_pending_io",
		"Pending InnoDB I/O operations by kind, from SHOW ENGINE INNODB STATUS.", []string{"target", "kind"}, nil)
)

// EngineStatusScraper scrapes SHOW ENGINE INNODB STATUS.
type EngineStatusScraper struct{}

func (EngineStatusScraper) Name() string { return "engine_innodb_status" }

func (EngineStatusScraper) Scrape(ctx context.Context, db *sql.DB, target string, ch chan<- prometheus.Metric) error {
	var typ, name, status string
	if err := db.QueryRowContext(ctx, "SHOW ENGINE INNODB STATUS").Scan(&typ, &name, &status); err != nil {
		return err
	}
	st, err := ParseEngineStatus(status)
	if err != nil {
		return err
	}
	g := func(d *prometheus.Desc, v uint64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), append([]string{target}, l...)...)
	}
	g(lsnDesc, st.LSN)
	if st.Has&HasCheckpoint != 0 {
		g(checkpointLSNDesc, st.LastCheckpointLSN)
	}
	if age, ok := st.CheckpointAge(); ok {
		g(checkpointAgeDesc, age)
	}
	if st.Has&HasHistoryList != 0 {
		g(historyListDesc, st.HistoryListLength)
	}
	if st.Has&HasPendingAIO != 0 {
		g(pendingIODesc, st.PendingAIOReads, "aio_read")
		g(pendingIODesc, st.PendingAIOWrites, "aio_write")
	}
	if st.Has&HasPendingFsyncs != 0 {
		g(pendingIODesc, st.PendingLogFsyncs, "log_fsync")
		g(pendingIODesc, st.PendingPoolFsyncs, "buffer_pool_fsync")
	}
	if st.Has&HasPendingLogFlushes != 0 {
		g(pendingIODesc, st.PendingLogFlushes, "log_flush")
		g(pendingIODesc, st.PendingCheckpoints, "checkpoint_write")
	}
	if st.Has&HasPendingReads != 0 {
		g(pendingIODesc, st.PendingReads, "buffer_pool_read")
	}
	if st.Has&HasPendingWrites != 0 {
		g(pendingIODesc, st.PendingWritesLRU, "lru_write")
		g(pendingIODesc, st.PendingWritesFlush, "flush_list_write")
	}
	return nil
}
