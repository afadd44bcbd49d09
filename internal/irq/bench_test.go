package irq

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// bigInterrupts is a 256-CPU, 2,000-line /proc/interrupts with a count of
// up to five digits in every column, one space apart (about 2.5 MB).
func bigInterrupts() []byte {
	var b bytes.Buffer
	writeHeader(&b, 256)
	for i := range 2000 {
		fmt.Fprintf(&b, "%4d:", 100+i)
		for c := range 256 {
			fmt.Fprintf(&b, " %d", (i*c)%100000)
		}
		fmt.Fprintf(&b, "  IR-PCI-MSIX-0000:5e:00.0  %d-edge  nvme0q%d\n", i, i)
	}
	return b.Bytes()
}

// writeHeader writes the header line of a file with one space before each CPU.
func writeHeader(b *bytes.Buffer, cpus int) {
	for c := range cpus {
		fmt.Fprintf(b, " CPU%d", c)
	}
	b.WriteByte('\n')
}

// sparseInterrupts is the /proc/interrupts of exporter's BenchmarkScrapeAll:
// 256 CPUs, 2,000 lines each with interrupts on one CPU, counts one space
// apart (about 1.1 MB).
func sparseInterrupts() []byte {
	var b bytes.Buffer
	writeHeader(&b, 256)
	for i := range 2000 {
		fmt.Fprintf(&b, "%4d:", 100+i)
		for c := range 256 {
			v := 0
			if c == i%256 {
				v = 1000 + i
			}
			fmt.Fprintf(&b, " %d", v)
		}
		fmt.Fprintf(&b, "  IR-PCI-MSIX-0000:5e:00.0  %d-edge  nvme%dq%d\n", i, i/33, i%33)
	}
	return b.Bytes()
}

// kernelInterrupts is /proc/interrupts as the kernel prints it
// (kernel/irq/proc.c: every count right-aligned in ten columns), for cpus
// CPUs and lines managed NVMe queue lines: each line's interrupts on one CPU,
// zero elsewhere, as on a host with one queue per core. 256 x 2,000 is
// about 5.7 MB.
func kernelInterrupts(cpus, lines int) []byte {
	var b bytes.Buffer
	b.WriteString("     ")
	for c := range cpus {
		fmt.Fprintf(&b, " CPU%-7d", c)
	}
	b.WriteByte('\n')
	for i := range lines {
		fmt.Fprintf(&b, "%4d:", 100+i)
		for c := range cpus {
			v := 0
			if c == i%cpus {
				v = 1_000_000 + 37*i
			}
			fmt.Fprintf(&b, " %10d", v)
		}
		fmt.Fprintf(&b, "  IR-PCI-MSIX-0000:5e:00.0 %7d-edge      nvme%dq%d\n", i, i/33, i%33)
	}
	b.WriteString("NMI:")
	for range cpus {
		b.WriteString("          0")
	}
	b.WriteString("   Non-maskable interrupts\n")
	return b.Bytes()
}

// BenchmarkParseInterrupts reports MB of /proc/interrupts text parsed per
// CPU second, beside BenchmarkReadInterruptsFloor (what reading that text
// costs).
func BenchmarkParseInterrupts(b *testing.B) {
	for _, bc := range []struct {
		name string
		data []byte
	}{{"dense", bigInterrupts()}, {"sparse", sparseInterrupts()}, {"kernel", kernelInterrupts(256, 2000)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			b.ReportAllocs()
			var p InterruptsParser // as the irq collector parses: memory reused
			start, n := cpuTime(), 0
			for b.Loop() {
				if _, err := p.Parse(bc.data); err != nil {
					b.Fatal(err)
				}
				n++
			}
			reportCPU(b, start, n, len(bc.data))
		})
	}
}

// BenchmarkReadInterruptsFloor is what getting the text into a buffer costs,
// the floor under any parser: "file" reads the 256-CPU kernel-format fixture
// from a file (a copy out of the page cache); "proc" reads this host's own
// /proc/interrupts, which the kernel formats on every read, and reports its
// CPU time per count field (cpu-ns/count) so the kernel's cost on a bigger
// host can be estimated (256 CPUs x 2,000 lines is 512,000 fields).
func BenchmarkReadInterruptsFloor(b *testing.B) {
	fixture := filepath.Join(b.TempDir(), "interrupts")
	if err := os.WriteFile(fixture, kernelInterrupts(256, 2000), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, path string }{{"file", fixture}, {"proc", "/proc/interrupts"}} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 8<<20)
			size, err := readInto(bc.path, buf)
			if err != nil {
				b.Fatal(err)
			}
			lines := bytes.Split(buf[:size], []byte{'\n'})
			counts := (len(lines) - 2) * len(strings.Fields(string(lines[0])))
			b.SetBytes(int64(size))
			start, n := cpuTime(), 0
			for b.Loop() {
				if size, err = readInto(bc.path, buf); err != nil {
					b.Fatal(err)
				}
				n++
			}
			reportCPU(b, start, n, size)
			if n > 0 && counts > 0 {
				b.ReportMetric(float64(cpuTime()-start)/float64(n)/float64(counts), "cpu-ns/count")
			}
		})
	}
}

// readInto reads the whole file at path into buf (open, read to EOF, close).
func readInto(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for {
		if n == len(buf) {
			return n, errors.New("buffer too small")
		}
		m, err := f.Read(buf[n:])
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// cpuTime is this process's user+system CPU time in ns: on a shared machine
// wall time mostly measures the other jobs.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU reports CPU time per op and, for size bytes per op, MB of text
// per CPU second (the MB/s of the fact, where wall-clock MB/s on a busy
// machine is not).
func reportCPU(b *testing.B, start int64, n, size int) {
	if n == 0 {
		return
	}
	ns := float64(cpuTime()-start) / float64(n)
	b.ReportMetric(ns, "cpu-ns/op")
	if ns > 0 {
		b.ReportMetric(float64(size)/ns*1e3, "cpu-MB/s")
	}
}
