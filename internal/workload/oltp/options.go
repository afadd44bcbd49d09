// Package oltp is sysbench 1.0.20's OLTP scripts (oltp_read_write,
// oltp_point_select, ...) as a walab workload: the same sbtestN schema, the
// same statement mix per event, the same --rand-type distributions, and
// server-side prepared statements.
package oltp

import (
	"fmt"
	"slices"

	"github.com/walab/walab/internal/workload"
)

// Scripts are the supported sysbench script names.
var Scripts = []string{
	"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select",
	"oltp_update_index", "oltp_update_non_index", "oltp_insert", "oltp_delete",
}

// Options are the sysbench oltp_common options, with sysbench's defaults in
// DefaultOptions.
type Options struct {
	Tables          int
	TableSize       int64
	RangeSize       int64
	PointSelects    int
	SimpleRanges    int
	SumRanges       int
	OrderRanges     int
	DistinctRanges  int
	RangeSelects    bool
	IndexUpdates    int
	NonIndexUpdates int
	DeleteInserts   int
	SkipTrx         bool
	CreateSecondary bool
	AutoInc         bool
	StorageEngine   string
	Rand            RandOptions
}

// DefaultOptions returns sysbench 1.0.20's defaults for script.
func DefaultOptions(script string) Options {
	o := Options{
		Tables: 1, TableSize: 10000, RangeSize: 100,
		PointSelects: 10, SimpleRanges: 1, SumRanges: 1, OrderRanges: 1, DistinctRanges: 1,
		RangeSelects: true, IndexUpdates: 1, NonIndexUpdates: 1, DeleteInserts: 1,
		CreateSecondary: true, AutoInc: true, StorageEngine: "innodb",
		Rand: DefaultRand,
	}
	if script == "oltp_point_select" {
		o.PointSelects = 1
	}
	return o
}

// validate checks o by the flags' own ranges, so that a library caller
// and the command line meet the same bounds, written once.
func (o Options) validate(script string) error {
	if !slices.Contains(Scripts, script) {
		return fmt.Errorf("unknown OLTP script %q (have %v)", script, Scripts)
	}
	fs, c := &workload.FlagSet{}, o
	bindOptions(fs, &c, o)
	for _, fl := range fs.Flags() {
		if err := fl.Check(); err != nil {
			return fmt.Errorf("--%s=%w", fl.Name, err)
		}
	}
	for _, r := range o.StorageEngine {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return fmt.Errorf("--mysql-storage-engine %q: not an identifier", o.StorageEngine)
		}
	}
	_, err := NewDist(o.Rand, o.TableSize)
	return err
}
