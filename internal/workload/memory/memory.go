// Package memory is sysbench 1.0.20's memory test as a loadgen workload
// (seed 002 checks a machine's memory bandwidth with it before any
// database runs): each event reads or writes one block of machine words,
// in order or at random offsets, in a buffer shared by every thread
// (scope global) or one per thread (local); the run ends when the total
// size has been transferred, or at --time.
package memory

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"
	"unsafe"

	"github.com/walab/walab/internal/workload"
)

func init() {
	workload.Register(workload.Spec{
		Name:   "memory",
		Help:   "sysbench 1.0.20's memory test: block reads or writes in RAM, no database",
		Phases: []string{"run"},
		Define: func(fs *workload.FlagSet) workload.Factory {
			var block, total, scope, oper, mode string
			var hugetlb bool
			fs.String(&block, "memory-block-size", "1K", "Size of the memory block each event reads or writes (K, M, G suffixes).")
			fs.String(&total, "memory-total-size", "100G", "Total size to transfer; the run ends there (or at --time).")
			fs.String(&scope, "memory-scope", "global", "Memory access scope: global (one block for all threads) or local (one per thread).")
			fs.String(&oper, "memory-oper", "write", "Memory operation: read, write or none.")
			fs.String(&mode, "memory-access-mode", "seq", "Memory access mode: seq or rnd.")
			fs.Bool(&hugetlb, "memory-hugetlb", false, "sysbench's HugeTLB allocation; accepted only off (Go allocates the buffers).")
			return workload.Factory{Local: func(workload.Target) (workload.Workload, error) {
				o, err := parseOptions(block, total, scope, oper, mode)
				if err != nil {
					return nil, err
				}
				if hugetlb {
					return nil, fmt.Errorf("--memory-hugetlb: not supported (Go allocates the buffers); leave it off")
				}
				return New(o)
			}}
		},
	})
}

// Options are the memory test's settings.
type Options struct {
	BlockSize, TotalSize int64
	Scope                string // global, local
	Oper                 string // read, write, none
	Mode                 string // seq, rnd
}

func parseOptions(block, total, scope, oper, mode string) (Options, error) {
	var o Options
	var err error
	if o.BlockSize, err = workload.ParseSize(block); err != nil {
		return o, fmt.Errorf("--memory-block-size: %w", err)
	}
	if o.TotalSize, err = workload.ParseSize(total); err != nil {
		return o, fmt.Errorf("--memory-total-size: %w", err)
	}
	o.Scope, o.Oper, o.Mode = scope, oper, mode
	return o, nil
}

// wordSize is a machine word, sysbench's size_t.
const wordSize = int64(unsafe.Sizeof(uintptr(0)))

// maxBlock bounds one block (and with scope local, each thread's): a
// mistyped size must not take the machine's memory.
const maxBlock = 16 << 30

// Workload is one memory test.
type Workload struct {
	o      Options
	global []uintptr
	sink   atomic.Uintptr // what the reads read, so they are not optimised away
}

var (
	_ workload.Workload    = (*Workload)(nil)
	_ workload.Describer   = (*Workload)(nil)
	_ workload.Headed      = (*Workload)(nil)
	_ workload.RunOptioner = (*Workload)(nil)
)

// New checks o and allocates the global block.
func New(o Options) (*Workload, error) {
	switch {
	case o.BlockSize < wordSize || o.BlockSize%wordSize != 0:
		return nil, fmt.Errorf("--memory-block-size %d: want a positive multiple of %d bytes", o.BlockSize, wordSize)
	case o.BlockSize > maxBlock:
		return nil, fmt.Errorf("--memory-block-size %d: at most %d bytes", o.BlockSize, int64(maxBlock))
	case o.TotalSize < 0:
		return nil, fmt.Errorf("--memory-total-size %d: must not be negative", o.TotalSize)
	}
	switch o.Scope {
	case "global", "local":
	default:
		return nil, fmt.Errorf("--memory-scope %q: want global or local", o.Scope)
	}
	switch o.Oper {
	case "read", "write", "none":
	default:
		return nil, fmt.Errorf("--memory-oper %q: want read, write or none", o.Oper)
	}
	switch o.Mode {
	case "seq", "rnd":
	default:
		return nil, fmt.Errorf("--memory-access-mode %q: want seq or rnd", o.Mode)
	}
	w := &Workload{o: o}
	if o.Scope == "global" {
		w.global = make([]uintptr, o.BlockSize/wordSize)
	}
	return w, nil
}

func (w *Workload) Name() string      { return "memory" }
func (w *Workload) TxTypes() []string { return []string{"event"} }

// RunOptions ends the run when the total size is transferred, as sysbench
// does (a lower --events ends it sooner).
func (w *Workload) RunOptions() workload.RunOptions {
	return workload.RunOptions{MaxEvents: w.o.TotalSize / w.o.BlockSize}
}

// Describe prints sysbench's option block.
func (w *Workload) Describe(out io.Writer) {
	fmt.Fprintf(out, "Running memory speed test with the following options:\n  block size: %dKiB\n  total size: %dMiB\n  operation: %s\n  scope: %s\n",
		w.o.BlockSize>>10, w.o.TotalSize>>20, w.o.Oper, w.o.Scope)
}

// SummaryHead is sysbench memory's operations and transfer lines.
func (w *Workload) SummaryHead(events uint64, seconds float64) string {
	s := max(seconds, 1e-9)
	mib := float64(events) * float64(w.o.BlockSize) / (1 << 20)
	return fmt.Sprintf("Total operations: %d (%8.2f per second)\n\n%.2f MiB transferred (%.2f MiB/sec)\n\n", events, float64(events)/s, mib, mib/s)
}

// NewTerminal gives a thread its block: the global one, or its own.
func (w *Workload) NewTerminal(_ int, r *rand.Rand) workload.Terminal {
	buf := w.global
	if buf == nil {
		buf = make([]uintptr, w.o.BlockSize/wordSize)
	}
	return &terminal{w: w, buf: buf, r: r}
}

type terminal struct {
	w   *Workload
	buf []uintptr
	r   *rand.Rand
	acc uintptr
}

func (*terminal) Next() string              { return "event" }
func (*terminal) KeyingTime(string) float64 { return 0 }
func (*terminal) ThinkTime(string) float64  { return 0 }

// Run does one event: a pass over the block's words (seq) or as many
// accesses at random words (rnd).
func (t *terminal) Run(ctx context.Context, _ string) (workload.Result, error) {
	t.acc = Event(t.buf, t.w.o.Oper, t.w.o.Mode == "rnd", t.r, t.acc)
	t.w.sink.Store(t.acc)
	return workload.Result{}, ctx.Err()
}

// Event reads or writes every word of buf in order, or len(buf) words at
// random offsets; reads are summed into acc, which it returns. The random
// offsets come from a xorshift64* stream seeded from r once per event (a
// sysbench event draws from its own fast generator too; math/rand per
// access costs more than the access).
func Event(buf []uintptr, oper string, rnd bool, r *rand.Rand, acc uintptr) uintptr {
	n := uint64(len(buf))
	switch {
	case oper == "none":
	case oper == "read" && !rnd:
		// Eight independent sums over a re-sliced window (no bounds check
		// per load), so the loads are not serialised on one add chain.
		var a, b, c, d, e, f, g, h uintptr
		i := 0
		for ; i+8 <= len(buf); i += 8 {
			w := buf[i : i+8 : i+8]
			a += w[0]
			b += w[1]
			c += w[2]
			d += w[3]
			e += w[4]
			f += w[5]
			g += w[6]
			h += w[7]
		}
		for ; i < len(buf); i++ {
			a += buf[i]
		}
		acc += a + b + c + d + e + f + g + h
	case oper == "write" && !rnd:
		for i := range buf {
			buf[i] = acc + uintptr(i)
		}
	case oper == "read":
		x := r.Uint64() | 1
		for range n {
			x ^= x >> 12
			x ^= x << 25
			x ^= x >> 27
			hi, _ := bits.Mul64(x*0x2545F4914F6CDD1D, n) // an offset in [0, n) without a division
			acc += buf[hi]
		}
	default: // random writes
		x := r.Uint64() | 1
		for i := range n {
			x ^= x >> 12
			x ^= x << 25
			x ^= x >> 27
			hi, _ := bits.Mul64(x*0x2545F4914F6CDD1D, n)
			buf[hi] = acc + uintptr(i)
		}
	}
	return acc
}
