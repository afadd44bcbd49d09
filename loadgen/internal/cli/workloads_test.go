package cli

// The binary links the workloads in (loadgen/main.go); the tests do the same.
import (
	_ "github.com/walab/walab/internal/benchmarksql"
	_ "github.com/walab/walab/internal/workload/cpu"
	_ "github.com/walab/walab/internal/workload/fileio"
	_ "github.com/walab/walab/internal/workload/memory"
	_ "github.com/walab/walab/internal/workload/oltp"
)
