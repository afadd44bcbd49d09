package oltp

import "github.com/walab/walab/internal/workload"

func init() {
	for _, script := range Scripts {
		workload.Register(workload.Spec{
			Name:   script,
			Help:   "sysbench 1.0.20's " + script + " script",
			Define: func(fs *workload.FlagSet) workload.Factory { return defineFlags(fs, script) },
		})
	}
}

// defineFlags declares sysbench's oltp_common options with the script's
// defaults; every script has its own copy.
func defineFlags(fs *workload.FlagSet, script string) workload.Factory {
	o := &Options{}
	bindOptions(fs, o, DefaultOptions(script))
	return workload.Factory{SQL: func(workload.Target) (workload.SQL, error) { return New(script, *o) }}
}

// Upper bounds of --tables and --table-size.
const (
	maxTables    = 100000
	maxTableSize = 1<<31 - 1 // id is an INT
)

// bindOptions declares the options on fs, bound to o, with the defaults
// d; their ranges are the options' only bounds (validate checks them too).
func bindOptions(fs *workload.FlagSet, o *Options, d Options) {
	fs.Int(&o.Tables, "tables", d.Tables, "Number of sbtest tables.").Range(1, maxTables)
	fs.Int64(&o.TableSize, "table-size", d.TableSize, "Rows per table.").Range(1, maxTableSize)
	fs.Int64(&o.RangeSize, "range-size", d.RangeSize, "Rows per range query.").Min(1)
	fs.Int(&o.PointSelects, "point-selects", d.PointSelects, "Point SELECTs per transaction.").Min(0)
	fs.Int(&o.SimpleRanges, "simple-ranges", d.SimpleRanges, "Simple range SELECTs per transaction.").Min(0)
	fs.Int(&o.SumRanges, "sum-ranges", d.SumRanges, "SUM() range SELECTs per transaction.").Min(0)
	fs.Int(&o.OrderRanges, "order-ranges", d.OrderRanges, "ORDER BY range SELECTs per transaction.").Min(0)
	fs.Int(&o.DistinctRanges, "distinct-ranges", d.DistinctRanges, "DISTINCT range SELECTs per transaction.").Min(0)
	fs.Bool(&o.RangeSelects, "range-selects", d.RangeSelects, "Run the range SELECTs at all.")
	fs.Int(&o.IndexUpdates, "index-updates", d.IndexUpdates, "UPDATEs of the indexed column k per transaction.").Min(0)
	fs.Int(&o.NonIndexUpdates, "non-index-updates", d.NonIndexUpdates, "UPDATEs of column c per transaction.").Min(0)
	fs.Int(&o.DeleteInserts, "delete-inserts", d.DeleteInserts, "DELETE+INSERT pairs per transaction.").Min(0)
	fs.Bool(&o.SkipTrx, "skip-trx", d.SkipTrx, "No BEGIN/COMMIT: every statement autocommits.")
	fs.Bool(&o.CreateSecondary, "create-secondary", d.CreateSecondary, "Create the k index after loading.")
	fs.Bool(&o.AutoInc, "auto-inc", d.AutoInc, "id is AUTO_INCREMENT (oltp_insert lets the server pick ids).")
	fs.String(&o.StorageEngine, "mysql-storage-engine", d.StorageEngine, "Storage engine of the sbtest tables.")
	fs.String(&o.Rand.Type, "rand-type", d.Rand.Type, "Id distribution: uniform, gaussian, special, pareto, zipfian.")
	fs.Int(&o.Rand.SpecIter, "rand-spec-iter", d.Rand.SpecIter, "Iterations of gaussian and special.").Min(1)
	fs.Float(&o.Rand.SpecPct, "rand-spec-pct", d.Rand.SpecPct, "special: hot slice, % of the range.").Range(0, 100)
	fs.Float(&o.Rand.SpecRes, "rand-spec-res", d.Rand.SpecRes, "special: % of draws in the hot slice.").Range(0, 100)
	fs.Float(&o.Rand.ParetoH, "rand-pareto-h", d.Rand.ParetoH, "pareto: h.")
	fs.Float(&o.Rand.ZipfianExp, "rand-zipfian-exp", d.Rand.ZipfianExp, "zipfian: exponent.")
}
