package cpuprof

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// openOrMissing opens the sampler; a machine that cannot run BPF
// perf-event programs is missing a capability (fatal under CI=true).
func openOrMissing(t *testing.T) *Sampler {
	t.Helper()
	s, err := Open(99)
	missingBPF(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// missingBPF: err from Open or Start is nil, or, when the machine cannot
// run BPF perf-event programs, a missing capability (fatal under CI=true).
func missingBPF(t *testing.T, err error) {
	t.Helper()
	var pe *Error
	if errors.As(err, &pe) && (pe.Reason == ReasonPermission || pe.Reason == ReasonNoBPF || pe.Reason == ReasonNoPerf) {
		testenv.Missing(t, "BPF CPU sampling on this machine: %v", err)
	}
	require.NoError(t, err)
}

// startBusy runs the busy program (its CPU in walab_busy_spin) for at most
// a minute; stop kills it and waits for it.
func startBusy(t *testing.T, wrap ...string) (pid uint32, stop func()) {
	t.Helper()
	bin, _ := buildBusy(t)
	argv := append(append([]string(nil), wrap...), bin, "60")
	cmd := exec.Command(argv[0], argv[1:]...)
	require.NoError(t, cmd.Start())
	stop = func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return uint32(cmd.Process.Pid), stop
}

// keys is how many keys m holds.
func keys(t *testing.T, m *ebpf.Map) int {
	var (
		k    [keySize]byte
		vals []uint64
		n    int
	)
	it := m.Iterate()
	for it.Next(&k, &vals) {
		n++
	}
	require.NoError(t, it.Err())
	return n
}

// TestDrainWithoutLookupAndDelete is the profiler on a kernel before 5.14,
// whose hash maps have no lookup-and-delete (the call fails with
// ENOTSUPP, which cilium/ebpf returns as ErrNotSupported; the stand-in
// here answers just that): Drain falls back to a lookup and a delete, the
// busy process's samples are counted and the map is left empty. Before
// the fallback every count was skipped, nothing was counted and the map
// kept every key.
func TestDrainWithoutLookupAndDelete(t *testing.T) {
	s := openOrMissing(t)
	pid, stop := startBusy(t)
	calls := 0
	s.lookupAndDelete = func(any, any) error {
		calls++
		return fmt.Errorf("lookup and delete: %w", ebpf.ErrNotSupported)
	}
	failed, err := s.SetPIDs([]uint32{pid})
	require.NoError(t, err)
	require.Empty(t, failed)
	require.Eventually(t, func() bool { return keys(t, s.counts) > 0 }, 30*time.Second, 100*time.Millisecond, "no sample of the busy process")
	stop()
	raw, err := s.Drain()
	require.NoError(t, err)
	require.Equal(t, DrainIterateDelete, s.DrainMethod())
	require.Equal(t, 1, calls, "the kernel's refusal is learnt once")
	var n uint64
	for _, r := range raw {
		require.Equal(t, pid, r.PID)
		n += r.Count
	}
	require.NotZero(t, n, "samples counted")
	require.Zero(t, keys(t, s.counts), "the counts map is drained")
	again, err := s.Drain()
	require.NoError(t, err)
	require.Empty(t, again, "nothing is counted twice")
}

// TestDrainCountsWhatItCannotTake: a count the map refuses to give up
// (an error other than the key's going away) stays in the map and the
// drain says so, instead of being skipped as if it never was.
func TestDrainCountsWhatItCannotTake(t *testing.T) {
	s := openOrMissing(t)
	var k [keySize]byte
	binary.NativeEndian.PutUint32(k[0:], 42)
	ones := make([]uint64, ebpf.MustPossibleCPU())
	ones[0] = 3
	require.NoError(t, s.counts.Put(k, ones))
	s.lookupAndDelete = func(any, any) error { return errors.New("no memory") }
	raw, err := s.Drain()
	require.ErrorContains(t, err, "1 of 1 counts not taken (lookup_and_delete): no memory")
	require.Empty(t, raw)
	require.Equal(t, 1, keys(t, s.counts), "the count stays for the next round")
}

// TestFullCountsMapIsCounted: with the counts map full of other keys, the
// busy process's samples cannot be inserted; the program counts them as
// lost (walab_profile_errors_total{kind="counts_full"}) instead of
// dropping them unseen.
func TestFullCountsMapIsCounted(t *testing.T) {
	s := openOrMissing(t)
	ones := make([]uint64, ebpf.MustPossibleCPU())
	for i := range maxKeys {
		var k [keySize]byte
		binary.NativeEndian.PutUint32(k[0:], 1<<31|uint32(i)) // no such pid
		require.NoError(t, s.counts.Put(k, ones))
	}
	pid, _ := startBusy(t)
	failed, err := s.SetPIDs([]uint32{pid})
	require.NoError(t, err)
	require.Empty(t, failed)
	require.Eventually(t, func() bool {
		n, err := s.Lost()
		require.NoError(t, err)
		return n > 0
	}, 30*time.Second, 100*time.Millisecond, "no lost sample counted")
}

// TestPinnedSamplerSamplesEveryOnlineCPU runs this test again under
// taskset, pinned to the first online CPU, as an exporter pinned off the
// database's cores is: the sampler must still open a perf event on every
// online CPU and sample a busy process pinned to the last one. Before,
// it opened runtime.NumCPU() events (the CPUs of its own affinity: CPU 0
// alone) and never saw the busy process.
func TestPinnedSamplerSamplesEveryOnlineCPU(t *testing.T) {
	if os.Getenv("WALAB_CPUPROF_PINNED") != "" {
		pinnedSampler(t, os.Getenv("WALAB_CPUPROF_PINNED"))
		return
	}
	online, err := onlineCPUs()
	require.NoError(t, err)
	if len(online) < 2 {
		testenv.Missing(t, "two online CPUs (online: %v)", online)
	}
	taskset := testenv.RequireBinary(t, "taskset")
	cmd := exec.Command(taskset, "-c", strconv.Itoa(online[0]), os.Args[0], "-test.run=^TestPinnedSamplerSamplesEveryOnlineCPU$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "WALAB_CPUPROF_PINNED="+strconv.Itoa(online[len(online)-1]))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestPinnedSamplerSamplesEveryOnlineCPU", "%s", out)
	require.NotContains(t, string(out), "--- SKIP", "%s", out)
}

// pinnedSampler is the pinned half: busyCPU is the online CPU the busy
// process runs on, not one this process may run on.
func pinnedSampler(t *testing.T, busyCPU string) {
	require.Equal(t, 1, runtime.NumCPU(), "this process is pinned to one CPU")
	online, err := onlineCPUs()
	require.NoError(t, err)
	s := openOrMissing(t)
	require.Equal(t, online, s.cpus, "a perf event on every online CPU")
	pid, stop := startBusy(t, testenv.RequireBinary(t, "taskset"), "-c", busyCPU)
	failed, err := s.SetPIDs([]uint32{pid})
	require.NoError(t, err)
	require.Empty(t, failed)
	require.Eventually(t, func() bool { return keys(t, s.counts) > 0 }, 30*time.Second, 100*time.Millisecond,
		"no sample of the busy process on CPU %s", busyCPU)
	stop()
	raw, err := s.Drain()
	require.NoError(t, err)
	require.NotEmpty(t, raw)
	require.Equal(t, pid, raw[0].PID)
}

// TestOldKernelIsRefused: on a kernel older than the program needs the
// profiler does not start, and says why (kernel_too_old, the version) for
// walab_profile_up 0; before, it tried and, where the load happened to
// succeed or fail otherwise, reported up or a vaguer reason.
func TestOldKernelIsRefused(t *testing.T) {
	proc := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(proc, "sys", "kernel"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proc, "sys", "kernel", "osrelease"), []byte("4.4.0-210-generic\n"), 0o644))
	_, err := Start(Options{Frequency: 99, Comms: []string{"mysqld"}, ProcFS: proc})
	var pe *Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, ReasonKernel, pe.Reason)
	require.ErrorContains(t, err, "Linux 4.4 is older than 4.9")
	require.NoError(t, checkKernel("/proc"), "this machine's kernel")
	require.NoError(t, checkKernel(t.TempDir()), "an unreadable release is left to the loader")
}

// BenchmarkDrain is one drain of 1,000 counts (a busy mysqld's keys in 5
// s, about) by each method: lookup_and_delete takes one bpf(2) call per
// key, the fallback iterate_delete two.
func BenchmarkDrain(b *testing.B) {
	s, err := Open(99)
	if err != nil {
		testenv.Missing(b, "BPF CPU sampling on this machine: %v", err)
	}
	defer s.Close()
	ones := make([]uint64, ebpf.MustPossibleCPU())
	for _, method := range []string{DrainLookupAndDelete, DrainIterateDelete} {
		b.Run(method, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				for i := range 1000 {
					var k [keySize]byte
					binary.NativeEndian.PutUint32(k[0:], 1<<31|uint32(i)) // no such pid
					binary.NativeEndian.PutUint32(k[4:], ^uint32(0))      // no stack
					binary.NativeEndian.PutUint32(k[8:], ^uint32(0))
					require.NoError(b, s.counts.Put(k, ones))
				}
				s.drain = method
				b.StartTimer()
				raw, err := s.Drain()
				require.NoError(b, err)
				require.Len(b, raw, 1000)
			}
		})
	}
}
