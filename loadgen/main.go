// Command loadgen runs TPC-C and sysbench-style OLTP load against
// MySQL/MariaDB, or sysbench's fileio test on files or a raw device, and
// exports what it does to Prometheus. See docs/loadgen.md.
package main

import (
	"os"

	"github.com/walab/walab/loadgen/internal/cli"

	// The workloads register themselves; the command line knows none by name.
	_ "github.com/walab/walab/internal/allworkloads"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
