package cli

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/workload"
)

// connPlan is how a run's connections are opened: blocking sockets or
// Go's poller, the driver's options and the Ps (GOMAXPROCS) the process
// needs for them, which execute applies.
type connPlan struct {
	blocking bool
	opts     driver.Options
	procs    int
}

// planConns decides how the targets' connections read (blockingFor, then
// rawReadPlan) given the process's procs, whether the user set them, the
// CPUs and whether the workload prefers the poller (workload.Spec.Poller).
func planConns(f *flags, poller bool, targets []*target, userSetProcs bool, procs, cpus int) connPlan {
	plan := connPlan{procs: procs}
	terminals, tcp := 0, false
	for _, t := range targets {
		if t.sql != nil {
			terminals += t.conns()
			tcp = tcp || driver.BlockingSocket(t.dsn)
		}
	}
	plan.blocking = f.blockingIO
	if !f.blockingIOSet {
		plan.blocking = blockingFor(poller, terminals, cpus)
	}
	if plan.blocking && tcp {
		plan.opts.RawReadWait, plan.procs = rawReadPlan(f.rawReadWait, terminals, userSetProcs, procs)
	}
	return plan
}

// maxBlockingTerminalsPerCPU bounds the terminals per CPU for which
// blocking sockets are the default. Measured with loadgen alone on a
// 2-core machine (docs/loadgen.md, "Blocking sockets or the poller"):
// oltp_read_write at 8 terminals 502-554 us of client CPU per transaction
// with blocking sockets against 594-609 us with the poller; at 64
// terminals 732-786 against 480-577 us.
const maxBlockingTerminalsPerCPU = 4

// blockingFor is the default of --mysql-blocking-io: blocking sockets pay
// when each terminal's reply comes soon and the terminals are few beside
// the CPUs, so that a terminal keeps its thread (and, with raw reads, its
// P) through the wait; with many terminals, or a workload whose terminals
// wait on the server for long (Spec.Poller), a thread per waiting terminal
// costs more in switches than the poller's one epoll_pwait for many.
func blockingFor(poller bool, terminals, cpus int) bool {
	return !poller && terminals <= maxBlockingTerminalsPerCPU*max(cpus, 1)
}

// openDBs opens the connection pool of every database target, sized for
// its phases.
func openDBs(targets []*target, plan connPlan) error {
	for _, t := range targets {
		if t.sql == nil {
			continue
		}
		var err error
		if plan.blocking {
			t.db, err = driver.OpenDB(t.dsn, plan.opts)
		} else {
			t.db, err = sql.Open("mysql", t.dsn)
		}
		if err != nil {
			return fmt.Errorf("target %s: %w", t.name, err)
		}
		n := t.conns() + 2
		t.db.SetMaxOpenConns(n)
		t.db.SetMaxIdleConns(n)
		t.run.DB = t.db
		t.stages = workload.OnDB(t.sql, t.db)
	}
	return nil
}

// maxRawReadProcs bounds the Ps loadgen asks for so that every terminal
// can hold one through a raw read (driver.Options.RawReadWait); with more
// terminals than that, reads go through the runtime.
const maxRawReadProcs = 256

// rawReadPlan decides the raw read wait of a run's connections and the Ps
// (GOMAXPROCS) the process needs for it. A terminal in a raw read holds its
// P, so raw reads need a P per terminal, one for the runner and one for
// the garbage collector; with fewer, terminals would queue for Ps and the
// server would see less concurrency than asked for. procs is raised when
// the user did not set GOMAXPROCS, up to maxRawReadProcs; otherwise reads
// go through the runtime (wait 0).
func rawReadPlan(wait time.Duration, terminals int, userSetProcs bool, procs int) (time.Duration, int) {
	need := terminals + 2
	switch {
	case wait <= 0:
		return 0, procs
	case procs >= need:
		return wait, procs
	case userSetProcs || need > maxRawReadProcs:
		return 0, procs
	}
	return wait, need
}

// ensureDatabase creates the DSN's database when missing, so prepare
// works on a fresh server.
func ensureDatabase(ctx context.Context, dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil || cfg.DBName == "" {
		return err
	}
	name := cfg.DBName
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+strings.ReplaceAll(name, "`", "``")+"`")
	return err
}
