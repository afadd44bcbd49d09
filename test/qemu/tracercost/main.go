// Command tracercost runs inside the QEMU bench's virtual machine and
// measures what the placement tracer costs the writes it watches: 4 KiB
// O_DIRECT writes to a namespace at each queue depth, in arms that
// alternate tracer off and on (off,on then on,off, so a drift of the
// machine falls on both sides), then one arm with the tracer on and the
// kernel's BPF run-time statistics on, for the program's time per run.
// The throughput arms run with the statistics off: they cost two clock
// reads per run that the exporter does not pay.
//
// Queue depth N is N goroutines, each with one pwrite(2) in flight on the
// same O_DIRECT descriptor (like fio's psync engine with numjobs=N): the
// nvme driver has up to N commands outstanding. One JSON line per arm
// (qemu.TracerArm) goes to -out. With -calibrate it only times
// qemu.CalibrationWork, for the emulated CPU's slowdown.
//
//	tracercost -dev /dev/nvme0n1 -qd 1,32 -pairs 5 -secs 3 -out /out/arms.jsonl
//
// It is a test tool: it overwrites the device it is given.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/nvmetrace"
	"github.com/walab/walab/test/qemu"
)

const blockSize = 4096

func main() {
	dev := flag.String("dev", "", "namespace block device (overwritten)")
	tracefs := flag.String("tracefs", "/sys/kernel/tracing", "mounted tracefs")
	qds := flag.String("qd", "1,32", "queue depths, comma-separated")
	pairs := flag.Int("pairs", 5, "off/on pairs per queue depth")
	secs := flag.Float64("secs", 3, "seconds per arm")
	spanMiB := flag.Int("span-mib", 128, "MiB of the device the writes cycle over")
	out := flag.String("out", "", "file for one JSON line per arm")
	calibrate := flag.Bool("calibrate", false, "only print qemu.CalibrationWork's nanoseconds")
	flag.Parse()
	if *calibrate {
		fmt.Println(qemu.CalibrationWork().Nanoseconds())
		return
	}
	depths, err := parseDepths(*qds)
	if err != nil || *dev == "" || *out == "" || *pairs < 1 || *secs <= 0 || *spanMiB < 1 {
		fmt.Fprintf(os.Stderr, "usage: tracercost -dev /dev/nvme0n1 -out FILE [-qd 1,32] [-pairs 5] [-secs 3] (%v)\n", err)
		os.Exit(2)
	}
	b := bench{dev: *dev, tracefs: *tracefs, dur: time.Duration(*secs * float64(time.Second)), span: int64(*spanMiB) << 20}
	if err := b.run(depths, *pairs, *out); err != nil {
		fmt.Fprintln(os.Stderr, "tracercost:", err)
		os.Exit(1)
	}
}

func parseDepths(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1024 {
			return nil, fmt.Errorf("queue depth %q: want 1..1024", f)
		}
		out = append(out, n)
	}
	return out, nil
}

type bench struct {
	dev, tracefs string
	dur          time.Duration
	span         int64
}

func (b bench) run(depths []int, pairs int, outPath string) error {
	fd, err := unix.Open(b.dev, unix.O_WRONLY|unix.O_DIRECT, 0)
	if err != nil {
		return fmt.Errorf("open %s O_DIRECT: %w", b.dev, err)
	}
	defer unix.Close(fd)
	f, err := os.Create(outPath)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, qd := range depths {
		for p := range pairs {
			order := []bool{false, true}
			if p%2 == 1 {
				order = []bool{true, false}
			}
			for _, on := range order {
				a, err := b.arm(fd, qd, p, on, false)
				if err != nil {
					return err
				}
				if err := enc.Encode(a); err != nil {
					return err
				}
			}
		}
		a, err := b.arm(fd, qd, -1, true, true)
		if err != nil {
			return err
		}
		if err := enc.Encode(a); err != nil {
			return err
		}
	}
	return nil
}

// arm runs one timed write load, with the tracer attached for its length
// when on, and the BPF run-time statistics on when stats.
func (b bench) arm(fd, qd, pair int, on, stats bool) (qemu.TracerArm, error) {
	a := qemu.TracerArm{QD: qd, Pair: pair, Tracer: on, Stats: stats}
	var tr *nvmetrace.Tracer
	if on {
		var err error
		if tr, err = nvmetrace.Open(b.tracefs); err != nil {
			return a, err
		}
		defer tr.Close()
	}
	if stats {
		c, err := nvmetrace.EnableRunStats()
		if err != nil {
			return a, err
		}
		defer c.Close()
	}
	writes, elapsed, err := load(fd, qd, b.span, b.dur)
	if err != nil {
		return a, err
	}
	a.Writes, a.Secs = writes, elapsed.Seconds()
	if tr == nil {
		return a, nil
	}
	counts, err := tr.Counts()
	if err != nil {
		return a, err
	}
	for _, c := range counts {
		a.Traced += c.Commands
	}
	if stats {
		rs, err := tr.RunStats()
		if err != nil {
			return a, err
		}
		a.Runs, a.RunNs = rs.Runs, uint64(rs.Runtime.Nanoseconds())
	}
	return a, nil
}

// load writes 4 KiB blocks with qd writers until dur has passed; each
// writer cycles over its own slice of the span. It returns the writes that
// completed and the time until the last one did.
func load(fd, qd int, span int64, dur time.Duration) (uint64, time.Duration, error) {
	per := span / blockSize / int64(qd)
	if per < 1 {
		return 0, 0, fmt.Errorf("span %d bytes is too small for queue depth %d", span, qd)
	}
	var (
		stop   atomic.Bool
		writes atomic.Uint64
		wg     sync.WaitGroup
		errs   = make([]error, qd)
	)
	start := time.Now()
	timer := time.AfterFunc(dur, func() { stop.Store(true) })
	defer timer.Stop()
	for w := range qd {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// O_DIRECT needs an aligned buffer: an anonymous mapping is page aligned.
			buf, err := unix.Mmap(-1, 0, blockSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
			if err != nil {
				errs[w] = err
				return
			}
			defer unix.Munmap(buf)
			for i := range buf {
				buf[i] = byte(w + i)
			}
			base := int64(w) * per
			for i := int64(0); !stop.Load(); i++ {
				off := (base + i%per) * blockSize
				if n, err := unix.Pwrite(fd, buf, off); err != nil || n != blockSize {
					errs[w] = fmt.Errorf("pwrite at %d: wrote %d: %v", off, n, err)
					return
				}
				writes.Add(1)
			}
		}()
	}
	wg.Wait()
	return writes.Load(), time.Since(start), errors.Join(errs...)
}
