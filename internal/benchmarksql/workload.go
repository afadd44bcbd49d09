package benchmarksql

import (
	"time"

	"github.com/walab/walab/internal/workload"
	"github.com/walab/walab/internal/workload/tpcc"
)

// The tpcc workload is registered here, where BenchmarkSQL's props files
// are read: a target may be a props file, whose keys become the workload's
// options (TPCCOptions) and the run's (RunOptions).
func init() {
	workload.Register(workload.Spec{
		Name:   "tpcc",
		Help:   "TPC-C, BenchmarkSQL 5.0 compatible (targets may be props files)",
		Report: workload.Report{Headline: tpcc.TxNewOrder}, // tpmC: New-Orders per minute
		Poller: true,
		Define: defineTPCC,
		TargetFile: func(path string) (*workload.TargetFile, error) {
			c, err := Load(path)
			if err != nil {
				return nil, err
			}
			return &workload.TargetFile{DSN: c.DSN(), Run: c.RunOptions(), LoadWorkers: c.LoadWorkers,
				Warnings: c.Warnings, Config: c}, nil
		},
	})
}

func defineTPCC(fs *workload.FlagSet) workload.Factory {
	var warehouses, terminals, limit, tables int
	var keepSize bool
	wf := fs.Int(&warehouses, "warehouses", 0, "TPC-C warehouses (prepare: to load; run: to use, 0 = all loaded; default: the props file's).").Range(0, maxWarehouses)
	fs.Int(&terminals, "terminals", 0, "TPC-C terminals per target (overrides --threads and the props file).").Min(0)
	fs.Int(&tables, "tables", 1, "sysbench-tpcc's --tables: independent copies of the TPC-C schema in the database, tables suffixed 1..N (bmsql_warehouse1 ...), each with --warehouses; a transaction picks its copy at random. 1: one schema, BenchmarkSQL's table names.").Range(1, tpcc.MaxCopies)
	fs.Bool(&keepSize, "keep-size", false, "Hold the database at its loaded size: each Delivery also deletes the delivered orders (and their order lines) older than the newest as many as the load made per district, and as many of the oldest payments as the run committed since the last Delivery, so a long run does not grow the data (and a drive sized to it does not fill). Not BenchmarkSQL's or the spec's: the consistency conditions on the sums of deleted rows are then reported as not applicable.")
	fs.Int(&limit, "limit-txns-per-min", 0, "TPC-C rate limit per target in transactions per minute (BenchmarkSQL limitTxnsPerMin).").Min(0)
	return workload.Factory{SQL: func(t workload.Target) (workload.SQL, error) {
		opts := tpcc.Options{}
		if t.File != nil {
			if c, ok := t.File.Config.(*Config); ok {
				opts = c.TPCCOptions()
			}
		}
		opts.Seed = t.Seed
		opts.KeepSize = keepSize
		if wf.Set || opts.Warehouses == 0 {
			opts.Warehouses = warehouses
		}
		var w tpccSQL
		var err error
		if tables > 1 {
			w, err = tpcc.NewCopies(opts, tables)
		} else {
			w, err = tpcc.New(opts)
		}
		if err != nil {
			return nil, err
		}
		return &tpccWorkload{tpccSQL: w, run: workload.RunOptions{Threads: terminals, Rate: rate(limit)}}, nil
	}}
}

// maxWarehouses bounds --warehouses: far above any lab (seed 000 loads
// 4,050; 100,000 warehouses are about 10 TB).
const maxWarehouses = 100000

// tpccWorkload is tpcc with the run settings of its own flags.
type tpccWorkload struct {
	tpccSQL
	run workload.RunOptions
}

// tpccSQL is one TPC-C schema or sysbench-tpcc's copies of it.
type tpccSQL interface {
	workload.SQL
	workload.SQLInitializer
}

func (w *tpccWorkload) RunOptions() workload.RunOptions { return w.run }

// RunOptions maps the props' run keys onto run settings.
func (c *Config) RunOptions() workload.RunOptions {
	return workload.RunOptions{
		Threads:         c.Terminals,
		Duration:        time.Duration(c.RunMins) * time.Minute,
		EventsPerThread: int64(c.RunTxnsPerTerminal),
		Rate:            rate(c.LimitTxnsPerMin),
	}
}

// rate turns a limit in transactions per minute into a rate per second.
// Props files say limitTxnsPerMin=1000000000 to mean "no limit"; as an
// arrival schedule such a rate would only pile up lateness, so a limit no
// server reaches (above maxRate) means none.
func rate(perMin int) float64 {
	r := float64(perMin) / 60
	if r > maxRate {
		return 0
	}
	return r
}

// maxRate is the highest rate taken as a real limit (transactions per second).
const maxRate = 1e6
