// Package cpu is sysbench 1.0.20's cpu test as a loadgen workload (seed
// 002 checks a machine's CPUs with it before any database runs): each event
// looks for the primes below --cpu-max-prime by trial division, as
// sysbench's cpu_execute_event does.
package cpu

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/walab/walab/internal/workload"
)

func init() {
	workload.Register(workload.Spec{
		Name:   "cpu",
		Help:   "sysbench 1.0.20's cpu test: primes by trial division, no database",
		Phases: []string{"run"},
		Define: func(fs *workload.FlagSet) workload.Factory {
			var max int
			fs.Int(&max, "cpu-max-prime", 10000, "Upper limit of the primes searched by each event.").Range(3, 1<<30)
			return workload.Factory{Local: func(workload.Target) (workload.Workload, error) { return &Workload{MaxPrime: max}, nil }}
		},
	})
}

// Workload is one cpu test.
type Workload struct{ MaxPrime int }

var (
	_ workload.Workload  = (*Workload)(nil)
	_ workload.Describer = (*Workload)(nil)
	_ workload.Headed    = (*Workload)(nil)
)

func (w *Workload) Name() string      { return "cpu" }
func (w *Workload) TxTypes() []string { return []string{"event"} }

// Describe prints sysbench's option line.
func (w *Workload) Describe(out io.Writer) { fmt.Fprintf(out, "Prime numbers limit: %d\n", w.MaxPrime) }

// SummaryHead is sysbench cpu's "CPU speed" block.
func (w *Workload) SummaryHead(events uint64, seconds float64) string {
	return fmt.Sprintf("CPU speed:\n    events per second: %8.2f\n", float64(events)/max(seconds, 1e-9))
}

func (w *Workload) NewTerminal(int, *rand.Rand) workload.Terminal { return terminal{max: w.MaxPrime} }

type terminal struct{ max int }

func (terminal) Next() string              { return "event" }
func (terminal) KeyingTime(string) float64 { return 0 }
func (terminal) ThinkTime(string) float64  { return 0 }
func (t terminal) Run(ctx context.Context, _ string) (workload.Result, error) {
	Primes(t.max)
	return workload.Result{}, ctx.Err()
}

// Primes counts the primes in [3, max) by trial division up to the square
// root, sysbench's per-event work.
func Primes(max int) int {
	n := 0
	for c := 3; c < max; c++ {
		t := int(math.Sqrt(float64(c)))
		l := 2
		for ; l <= t; l++ {
			if c%l == 0 {
				break
			}
		}
		if l > t {
			n++
		}
	}
	return n
}
