package collector

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/innodb"
	"github.com/walab/walab/internal/promql"
)

// innodbCollector scrapes the InnoDB write path of one or more MySQL/MariaDB
// targets (seed 000 runs two instances, on 3306 and 3307). A target that is
// down, slow or refuses login reports walab_mysql_up 0; the others and the
// collector itself carry on.
type innodbCollector struct {
	logger   *slog.Logger
	targets  []*mysqlTarget
	scrapers []innodb.Scraper
}

type innodbConfig struct {
	Timeout time.Duration         `yaml:"timeout"`
	Targets []innodb.TargetConfig `yaml:"targets"`
}

type mysqlTarget struct {
	name    string
	addr    string // for logs: never the DSN, which may hold a password
	db      *sql.DB
	timeout time.Duration

	mu     sync.Mutex
	wasUp  bool
	logged bool
	flight *targetRead // the read in progress, shared by concurrent scrapes
}

// targetRead is one read of a target; every scrape that arrives while it
// runs waits for it and sends the same metrics. Before, each scrape read
// on its own, and a burst of scrapes queued for the target's connections
// past the timeout and reported a healthy server down.
type targetRead struct {
	done    chan struct{}
	metrics []prometheus.Metric
}

var (
	mysqlUpDesc = prometheus.NewDesc(promql.MySQLUp,
		"1 if the MySQL/MariaDB target answered this scrape, 0 if it is down, slow or refused the login.", []string{"target"}, nil)
	mysqlScraperSuccessDesc = prometheus.NewDesc(Namespace+"_mysql_scraper_success",
		"1 if this source (global_status, engine_innodb_status, global_variables) of the target was read this scrape.", []string{"target", "scraper"}, nil)
)

func init() {
	Register("innodb", true, newInnoDBCollector)
}

func newInnoDBCollector(env Env) (Collector, error) {
	var cfg innodbConfig
	if err := env.Config.Decode("innodb", &cfg); err != nil {
		return nil, err
	}
	c := &innodbCollector{logger: env.log(), scrapers: innodb.Scrapers()}
	seen := map[string]bool{}
	for _, tc := range cfg.Targets {
		if tc.Timeout == 0 {
			tc.Timeout = cfg.Timeout
		}
		mc, err := tc.Resolve()
		if err != nil {
			return nil, err
		}
		if seen[tc.Name] {
			return nil, fmt.Errorf("innodb target %q listed twice", tc.Name)
		}
		seen[tc.Name] = true
		conn, err := mysql.NewConnector(mc)
		if err != nil {
			return nil, fmt.Errorf("innodb target %q: %w", tc.Name, err)
		}
		db := sql.OpenDB(conn)
		// One scrape at a time per target needs one connection; a second
		// covers a concurrent scrape without piling up connections.
		db.SetMaxOpenConns(2)
		db.SetMaxIdleConns(2)
		db.SetConnMaxLifetime(10 * time.Minute)
		c.targets = append(c.targets, &mysqlTarget{name: tc.Name, addr: mc.Net + ":" + mc.Addr, db: db, timeout: mc.ReadTimeout, wasUp: true})
	}
	return c, nil
}

func (c *innodbCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	if len(c.targets) == 0 {
		return ErrNoData
	}
	var wg sync.WaitGroup
	for _, t := range c.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.scrapeTarget(ctx, t, ch)
		}()
	}
	wg.Wait()
	return nil
}

// scrapeTarget sends the target's metrics: from the read in progress if
// there is one, else from a new read. The read is bounded by the target's
// timeout, not by the first caller's context, so one impatient scrape does
// not fail the others; a caller whose own context ends first gets nothing
// for the target this time (the scrape framework reports the timeout).
func (c *innodbCollector) scrapeTarget(ctx context.Context, t *mysqlTarget, ch chan<- prometheus.Metric) {
	t.mu.Lock()
	r := t.flight
	if r == nil {
		r = &targetRead{done: make(chan struct{})}
		t.flight = r
		go c.read(t, r)
	}
	t.mu.Unlock()
	select {
	case <-r.done:
		for _, m := range r.metrics {
			ch <- m
		}
	case <-ctx.Done():
	}
}

func (c *innodbCollector) read(t *mysqlTarget, r *targetRead) {
	defer func() {
		t.mu.Lock()
		t.flight = nil
		t.mu.Unlock()
		close(r.done)
	}()
	defer recoverDevice(c.logger, "mysql target "+t.name)
	ch := make(chan prometheus.Metric)
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for m := range ch {
			r.metrics = append(r.metrics, m)
		}
	}()
	defer func() { close(ch); <-collected }()
	ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
	defer cancel()
	err := t.db.PingContext(ctx)
	if err == nil {
		for _, s := range c.scrapers {
			ok := 1.0
			if serr := s.Scrape(ctx, t.db, t.name, ch); serr != nil {
				ok = 0
				c.logger.Warn("mysql scraper failed", "target", t.name, "addr", t.addr, "scraper", s.Name(), "err", serr)
				if ctx.Err() != nil {
					err = fmt.Errorf("timed out after %s during %s", t.timeout, s.Name())
				}
			}
			ch <- prometheus.MustNewConstMetric(mysqlScraperSuccessDesc, prometheus.GaugeValue, ok, t.name, s.Name())
		}
	}
	up := 1.0
	if err != nil {
		up = 0
	}
	t.report(c.logger, err)
	ch <- prometheus.MustNewConstMetric(mysqlUpDesc, prometheus.GaugeValue, up, t.name)
}

// report logs a target going down or coming back once, not every scrape.
func (t *mysqlTarget) report(logger *slog.Logger, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err != nil && (t.wasUp || !t.logged):
		msg := "mysql target down"
		var me *mysql.MySQLError
		if errors.As(err, &me) && (me.Number == 1045 || me.Number == 1044) {
			msg = "mysql target refused the login"
		}
		logger.Error(msg, "target", t.name, "addr", t.addr, "err", err)
		t.wasUp, t.logged = false, true
	case err == nil && !t.wasUp:
		logger.Info("mysql target is back", "target", t.name, "addr", t.addr)
		t.wasUp = true
	}
}
