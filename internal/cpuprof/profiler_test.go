package cpuprof

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// startOrMissing starts a profiler of comms; a machine that cannot run
// BPF perf-event programs is missing a capability (fatal under CI=true).
func startOrMissing(t *testing.T, comms ...string) *Profiler {
	t.Helper()
	p, err := Start(Options{Frequency: 99, Comms: comms, Interval: time.Second})
	missingBPF(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

// buildBusy compiles testdata/busy.c, whose CPU goes to walab_busy_spin,
// under a comm name of this test run's own.
func buildBusy(t *testing.T) (bin, comm string) {
	t.Helper()
	cc := testenv.RequireBinary(t, "cc")
	comm = fmt.Sprintf("wlbusy%d", os.Getpid()%100000)
	bin = filepath.Join(t.TempDir(), comm)
	out, err := exec.Command(cc, "-O1", "-fno-omit-frame-pointer", "-o", bin, "testdata/busy.c").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin, comm
}

// TestProgramPassesTheVerifier loads the sampling program into this
// machine's kernel.
func TestProgramPassesTheVerifier(t *testing.T) {
	openOrMissing(t)
}

// TestFindsTheBusyFunction runs a program that spends its CPU in
// walab_busy_spin, samples it for a few seconds, and finds that function
// as its top self frame, named from the binary's .symtab, and in the
// pprof profile built from the same samples.
func TestFindsTheBusyFunction(t *testing.T) {
	bin, comm := buildBusy(t)
	cmd := exec.Command(bin, "60")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	p := startOrMissing(t, comm)
	start := time.Now()
	samples := p.Record(context.Background(), 4*time.Second)
	var own []Sample
	for _, s := range samples {
		require.Equal(t, uint32(cmd.Process.Pid), s.PID, "only the chosen process is sampled")
		require.Equal(t, comm, s.Comm)
		own = append(own, s)
	}
	top := SelfCounts(own)
	require.NotEmpty(t, top, "no sample of the busy process in 4 s")
	var total uint64
	for _, c := range top {
		total += c.Total
	}
	require.Equal(t, FuncKey{"walab_busy_spin", comm}, top[0].FuncKey, "%v", top)
	require.Greater(t, top[0].Total*2, total, "the busy function holds most samples: %v", top)

	pp, err := Profile(samples, p.Frequency(), start, 4*time.Second)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteProfile(&buf, pp))
	back, err := profile.Parse(&buf)
	require.NoError(t, err)
	var inBusy int64
	for _, s := range back.Sample {
		if fn := s.Location[0].Line[0].Function.Name; fn == "walab_busy_spin" {
			inBusy += s.Value[0]
			require.Equal(t, s.Value[0]*(int64(time.Second)/99), s.Value[1], "cpu nanoseconds = samples x period")
		}
	}
	require.Equal(t, int64(top[0].Total), inBusy)

	n, errs, procs := p.Totals()
	require.GreaterOrEqual(t, n, total)
	require.Equal(t, 1, procs)
	require.Zero(t, errs[ErrDrain])
}

// TestTopIsBounded: Top never returns more than asked, ranked by recent
// samples.
func TestTopIsBounded(t *testing.T) {
	p := &Profiler{self: map[FuncKey]uint64{}, pending: map[FuncKey]uint64{{"f00", "m"}: 100}}
	recent := map[FuncKey]uint64{}
	for i := range 50 {
		k := FuncKey{fmt.Sprintf("f%02d", i), "m"}
		recent[k] = uint64(i + 1)
		p.self[k] = uint64(100 * (i + 1))
	}
	p.ring = []map[FuncKey]uint64{recent}
	top := p.Top(5)
	require.Len(t, top, 5)
	require.Equal(t, FuncCount{FuncKey{"f00", "m"}, 100, 101}, top[0], "the current interval counts too")
	require.Equal(t, FuncCount{FuncKey{"f49", "m"}, 5000, 50}, top[1])
	require.Equal(t, "f46", top[4].Function)
}

// TestMoreProcessesThanThePIDMap: 1,100 processes of a sampled name (a
// /proc of this test's own) against a pid map of 1,024: the profiler
// samples 1,024, says 76 are not sampled, and does not count them among
// the sampled (issue 54: it said 1,100).
func TestMoreProcessesThanThePIDMap(t *testing.T) {
	proc := t.TempDir()
	const n = 1100
	for pid := 1; pid <= n; pid++ {
		d := filepath.Join(proc, fmt.Sprint(4000000+pid))
		require.NoError(t, os.Mkdir(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "comm"), []byte("wlmany\n"), 0o644))
	}
	p, err := Start(Options{Frequency: 99, Comms: []string{"wlmany"}, ProcFS: proc, Interval: time.Hour})
	var pe *Error
	if errors.As(err, &pe) && (pe.Reason == ReasonPermission || pe.Reason == ReasonNoBPF || pe.Reason == ReasonNoPerf) {
		testenv.Missing(t, "BPF CPU sampling on this machine: %v", err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	_, _, procs := p.Totals()
	require.Equal(t, maxPIDs, procs)
	require.Equal(t, n-maxPIDs, p.Unsampled())
}
