// Package cpuprof: how the sampler works and names the frames, and what it costs (moved from docs/profile.md).
//
// # How
//
// Sampling is a BPF program run by a CPU-clock perf event on every online
// CPU (the event `perf record -e cpu-clock` uses; the CPUs of
// `/sys/devices/system/cpu/online` when the profiler starts, whatever CPUs
// the exporter itself is pinned to; a CPU brought online later is sampled
// after a restart), at `--collector.profile.frequency`
// samples per second per CPU (default 99, perf's usual rate, off the timer
// tick's multiples). On each sample the program looks up the current thread
// group in a map of the sampled pids; for those it takes the kernel stack and
// the user stack (`bpf_get_stackid`, up to 127 frames each, into a stack-trace
// map) and adds one to a per-CPU count keyed by pid and the two stack ids.
// Nothing goes to user space per sample; a sample whose key is new while
// the counts map is full is added to a per-CPU lost count instead
// (`counts_full` below). Every 5 s the exporter takes the counts and the
// stacks they name out of the maps (freeing them), names the frames and
// adds them up. It takes each count with the kernel's lookup-and-delete
// (hash maps have it from Linux 5.14); where the kernel refuses it, it reads
// each count and then deletes it, from then on (a sample added to a key
// between the two calls is lost, as one added in place to an element
// lookup-and-delete has just taken is). A count the kernel will not give up
// stays in the map and the round counts as a `drain` error. It lists /proc for the processes whose comm name is
// one of `--collector.profile.process` (default `mysqld`, `mariadbd`; repeat
// the flag to name others) at each of those rounds, so a restarted mysqld is
// sampled again within 5 s.
//
// The program is assembled at start with cilium/ebpf's `asm` package, as the
// placement tracer's is ([placement-trace.md](placement-trace.md)): about 45
// instructions, no clang at build time, no kernel struct layout compiled in.
//
// Why BPF and not `perf record`: the exporter is already the one process on
// the database host with CAP_BPF/CAP_PERFMON (the placement tracer), the
// counts are aggregated in the kernel (the exporter reads a few hundred keys
// every 5 s instead of parsing a perf.data of every sample), and no
// `linux-perf` package matching the running kernel is needed on the host.
// Where BPF is not allowed, `perf top -p $(pidof mariadbd)` gives the same
// view by hand; the collector then reports `walab_profile_up 0` with its
// reason.
//
// # Naming the frames
//
//   - Kernel frames: `/proc/kallsyms` (text symbols). It shows a process
//     without CAP_SYSLOG only zeros unless kernel.kptr_restrict is 0 and
//     perf_event_paranoid 1 or less; at kptr_restrict 2 it shows every process
//     zeros. The packaged unit grants CAP_SYSLOG for this (docs/install.md).
//     Where the addresses are hidden, kernel frames are `[unknown]`, nothing
//     is guessed, the exporter logs it once and
//     `walab_profile_frames_unnamed_info{frames="kernel",reason}` says why:
//     `needs_cap_syslog` or `kptr_restrict`.
//   - User frames: the process's `/proc/PID/maps` gives the file and offset
//     of each address (another user's maps need CAP_PERFMON or CAP_SYS_ADMIN
//     on Linux 6.18, CAP_SYS_PTRACE where a kernel refuses those; refused, the
//     process's frames are `[unknown]` and
//     `walab_profile_frames_unnamed_info{frames="user",reason="needs_cap_sys_ptrace"}`
//     says so); the file's ELF program headers turn the offset into an
//     ELF address; the name comes from, in order, the file's `.symtab`, the
//     debug file of its build id under `/usr/lib/debug/.build-id/` (what
//     Debian's `-dbgsym` packages install), its `.dynsym`, and finally the
//     function starts of `.eh_frame_hdr`, for which the function is named by
//     its start address (`0x6a9ff8`). C++ names are demangled without their
//     parameters (`Item_func_concat::val_str`) and symbol versions dropped
//     (`pthread_rwlock_unlock`), as perf shows them.
//   - Debian's `mariadbd` is stripped: its `.dynsym` (about 29,000 functions)
//     names the SQL layer, but most of InnoDB is built with hidden visibility
//     and is not in it, so InnoDB functions (`ut_delay`, `row_search_mvcc`)
//     appear as `0x...` starts until the matching debug file is installed
//     (`mariadb-server-core-dbgsym` from Debian's debug archive). Such an
//     address can be named later with `addr2line -f -e <debug file> 0x...`.
//   - The user stack is walked by frame pointers. Debian builds without them,
//     so past the first frame a user stack may be cut short or wrong; the
//     leaf frame (the function the CPU was in, what the metrics count) is
//     always right. The pprof profile keeps the stacks as sampled.
package cpuprof
