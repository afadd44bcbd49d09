package nvmetrace

import (
	"fmt"
	"io"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// RunStats is what the kernel counted of the attached program while BPF
// run-time statistics were on (EnableRunStats): how often it ran and the
// time spent in it.
type RunStats struct {
	Runs    uint64
	Runtime time.Duration
}

// EnableRunStats turns on the kernel's BPF run-time statistics (the
// BPF_ENABLE_STATS command, the same switch as the kernel.bpf_stats_enabled
// sysctl) until the returned Closer is closed. The statistics themselves
// cost two clock reads per program run, so leave them off when timing.
func EnableRunStats() (io.Closer, error) {
	c, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		return nil, fmt.Errorf("placement trace: enabling BPF run-time statistics: %w", err)
	}
	return c, nil
}

// RunStats reads the program's run count and run time, counted while the
// statistics were on.
func (t *Tracer) RunStats() (RunStats, error) { return runStats(t.prog) }

// RunStats is the I/O-size program's run count and run time, counted
// while the statistics were on.
func (t *IOSizeTracer) RunStats() (RunStats, error) { return runStats(t.prog) }

func runStats(p *ebpf.Program) (RunStats, error) {
	s, err := p.Stats()
	if err != nil {
		return RunStats{}, fmt.Errorf("BPF program statistics: %w", err)
	}
	return RunStats{Runs: s.RunCount, Runtime: s.Runtime}, nil
}
