package workload

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Spec is one workload as loadgen offers it: its name, its flags and the
// factory that builds it for a target once the flags are parsed. Workload
// packages register their specs in init; the binary links them in with a
// blank import, so the command line never names a concrete workload.
type Spec struct {
	Name string
	Help string
	// Phases the workload has, in order; nil means DefaultPhases.
	Phases []string
	// Report is the style of the workload's report lines and summary.
	Report Report
	// Define declares the workload's options on fs and returns the factory.
	// It is called once per registration, before parsing; the factory is
	// called after parsing, once per target.
	Define func(fs *FlagSet) Factory
	// TargetFile, if set, reads a target given as a file (tpcc: a
	// BenchmarkSQL props file). Without it such targets are refused.
	TargetFile func(path string) (*TargetFile, error)
	// Poller: the workload's terminals wait on the server for long (TPC-C:
	// row locks and a dozen statements a transaction), so loadgen reads
	// their replies through Go's network poller unless the user asks for
	// blocking sockets: measured cheaper per transaction at every terminal
	// count (docs/loadgen.md, "Blocking sockets or the poller").
	Poller bool
}

// Report is how the runner reports a workload: sysbench's SQL lines and
// summary unless a field says otherwise.
type Report struct {
	// IO: the events are I/O requests (fileio); the report lines and
	// summary are sysbench fileio's (MiB/s, fsyncs/s) instead of queries
	// and transactions.
	IO bool
	// Headline names the transaction type whose completions per minute are
	// the workload's headline figure (tpcc: New-Order, for tpmC); the
	// summary is then BenchmarkSQL's instead of sysbench's.
	Headline string
}

// DefaultPhases are the phases of a database workload.
var DefaultPhases = []string{"prepare", "run", "check", "cleanup"}

// Factory builds the workload for one target. Exactly one field is set:
// Local for a workload that runs on the client alone (sysbench cpu,
// memory, fileio: no database target and no connection per terminal), SQL
// for one on a database.
type Factory struct {
	Local func(t Target) (Workload, error)
	SQL   func(t Target) (SQL, error)
}

// Target is what a factory learns about the target it builds for.
type Target struct {
	Name string
	File *TargetFile // nil unless the target was given as a file
	Seed uint64      // the run's random seed (never 0 in a run)
}

// TargetFile is a target described by a file.
type TargetFile struct {
	DSN string // go-sql-driver DSN
	// Run holds the file's run settings; the runner flags a user gives win.
	Run RunOptions
	// LoadWorkers is the file's number of loaders for prepare (0: none given).
	LoadWorkers int
	// Warnings about the file (ignored keys, ...); never hold a password.
	Warnings []string
	// Config is the parsed file, for the factory.
	Config any
}

// RunOptions are run settings a workload or its target file may give; a
// zero field gives nothing.
type RunOptions struct {
	Threads         int
	Duration        time.Duration
	EventsPerThread int64   // events = EventsPerThread × threads
	Rate            float64 // transactions per second over all terminals
	// MaxEvents ends the run after this many events in all (sysbench
	// memory: the total size over the block size); a lower --events ends
	// it sooner.
	MaxEvents int64
}

var (
	regMu sync.Mutex
	specs []Spec
)

// Register adds a workload; it panics on a duplicate or incomplete spec
// (a programming error, found at start-up).
func Register(s Spec) {
	regMu.Lock()
	defer regMu.Unlock()
	if s.Name == "" || s.Define == nil {
		panic("workload: Register needs Name and Define")
	}
	if slices.ContainsFunc(specs, func(o Spec) bool { return o.Name == s.Name }) {
		panic(fmt.Sprintf("workload: %q registered twice", s.Name))
	}
	if s.Phases == nil {
		s.Phases = DefaultPhases
	}
	specs = append(specs, s)
}

// Specs returns the registered workloads in registration order.
func Specs() []Spec {
	regMu.Lock()
	defer regMu.Unlock()
	return slices.Clone(specs)
}
