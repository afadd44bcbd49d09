package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/workload"
)

// Config of one run against one target.
type Config struct {
	Target string // label value; "" becomes "default"
	// Workload is a local workload (sysbench cpu, memory, fileio): its
	// terminals run without a connection. Set it or SQL, not both.
	Workload workload.Workload
	// SQL is a database workload, run on DB: each terminal holds a
	// connection of DB's, which the runner opens and reopens.
	SQL workload.SQL
	DB  *sql.DB
	// Report is the style of the report lines and summary (the workload's
	// registration gives it).
	Report  workload.Report
	Threads int
	// Duration and Events bound the run; 0 means no bound for that one. With
	// both 0 the run goes until ctx ends.
	Duration time.Duration
	Events   int64
	// Rate is the target transactions per second over all terminals; 0 is unlimited.
	Rate           float64
	ReportInterval time.Duration // 0: no report lines
	Percentile     float64       // of report lines and summary; default 95
	Out            io.Writer     // report lines; nil discards
	LinePrefix     string        // prepended to report lines (multi-target)
	Metrics        *Metrics      // nil: no Prometheus series
	RunID          string
	Scenario       string
	Seed           uint64
	// MaxRetries of one transaction after a deadlock or lock wait timeout
	// (default 10); after that it counts as an error.
	MaxRetries int
	// DrainTimeout bounds the wait for in-flight transactions after the
	// stop (default 30 s); those still running are then canceled and
	// counted as errors.
	DrainTimeout time.Duration
	// Reconnect backoff (defaults 100 ms .. 5 s).
	BackoffMin, BackoffMax time.Duration
	Clock                  Clock // nil: real time
	// OnError, if set, sees every failed attempt (for logging).
	OnError func(terminal int, class driver.Class, err error)
}

func (c *Config) defaults() error {
	if (c.Workload == nil) == (c.SQL == nil) {
		return errors.New("runner: Workload or SQL is required, and not both")
	}
	if (c.DB == nil) != (c.Workload != nil) {
		return errors.New("runner: DB is required with an SQL workload, and for it alone")
	}
	if c.Threads < 1 {
		return fmt.Errorf("runner: Threads must be >= 1 (got %d)", c.Threads)
	}
	if c.Rate < 0 || c.Events < 0 || c.Duration < 0 {
		return fmt.Errorf("runner: Rate, Events and Duration must be >= 0 (got %g, %d, %v)", c.Rate, c.Events, c.Duration)
	}
	orDefault(&c.Target, "default")
	orDefault(&c.Percentile, 95)
	orDefault(&c.Out, io.Discard)
	orDefault(&c.MaxRetries, 10)
	orDefault(&c.DrainTimeout, 30*time.Second)
	orDefault(&c.BackoffMin, 100*time.Millisecond)
	orDefault(&c.BackoffMax, 5*time.Second)
	orDefault(&c.Clock, Clock(realClock{}))
	return nil
}

// orDefault sets *p to def when it is the zero value.
func orDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}

// info is the workload, local or SQL.
func (c *Config) info() workload.Info {
	if c.SQL != nil {
		return c.SQL
	}
	return c.Workload
}

// init lets the workload open or read what the run needs before the
// terminals start.
func (c *Config) init(ctx context.Context) error {
	if in, ok := c.SQL.(workload.SQLInitializer); ok {
		return in.Init(ctx, c.DB)
	}
	if in, ok := c.Workload.(workload.Initializer); ok {
		return in.Init(ctx)
	}
	return nil
}
