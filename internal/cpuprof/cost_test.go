package cpuprof

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestProgramCost is bench/profile-cost.sh's measure of the BPF program
// itself (WALAB_BENCH_PROFILE=1; WALAB_BENCH_PROFILE_SECS, default 20):
// with the kernel's BPF statistics on, it samples mysqld and mariadbd at
// the default 99 Hz and prints the program's runs and nanoseconds per run,
// and the samples counted.
func TestProgramCost(t *testing.T) {
	if os.Getenv("WALAB_BENCH_PROFILE") != "1" {
		t.Skip("a benchmark: bench/profile-cost.sh runs it with WALAB_BENCH_PROFILE=1")
	}
	secs := 20
	if v := os.Getenv("WALAB_BENCH_PROFILE_SECS"); v != "" {
		var err error
		secs, err = strconv.Atoi(v)
		require.NoError(t, err)
	}
	stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	require.NoError(t, err)
	defer stats.Close()
	p := startOrMissing(t, "mysqld", "mariadbd")
	before, err := p.sampler.ProgramStats()
	require.NoError(t, err)
	samples := p.Record(context.Background(), time.Duration(secs)*time.Second)
	after, err := p.sampler.ProgramStats()
	require.NoError(t, err)
	var n uint64
	for _, s := range samples {
		n += s.Count
	}
	runs := after.RunCount - before.RunCount
	require.NotZero(t, runs, "the program never ran")
	ns := float64(after.Runtime-before.Runtime) / float64(runs)
	fmt.Printf("| %d s | %d | %.0f | %.0f | %d | %.1f |\n", secs, runs, float64(runs)/float64(secs), ns, n, float64(n)/float64(secs))
}
