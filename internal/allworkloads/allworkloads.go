// Package allworkloads links in every workload loadgen offers: each registers
// itself with internal/workload in init. loadgen imports it to run them,
// walab experiment to validate a plan's workloads and their flags.
package allworkloads

import (
	_ "github.com/walab/walab/internal/benchmarksql"    // tpcc, with BenchmarkSQL props files
	_ "github.com/walab/walab/internal/workload/cpu"    // sysbench cpu: a machine check, no database
	_ "github.com/walab/walab/internal/workload/fileio" // sysbench fileio: files or a raw device, no database
	_ "github.com/walab/walab/internal/workload/memory" // sysbench memory
	_ "github.com/walab/walab/internal/workload/oltp"   // the sysbench OLTP scripts
)
