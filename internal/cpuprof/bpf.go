// Package cpuprof samples the on-CPU stacks of chosen processes (mysqld,
// mariadbd) with a BPF program on a CPU-clock perf event per CPU, as
// `perf top -p` does, symbolizes them (kernel frames from /proc/kallsyms,
// user frames from the ELF symbol tables of the mapped files) and keeps
// the counts by function and the stacks for a pprof profile.
//
// The program is assembled by hand with cilium/ebpf's asm package, as the
// placement tracer (internal/nvmetrace) is: no C toolchain or generated
// object at build time.
package cpuprof

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/irq"
	"github.com/walab/walab/internal/placement"
)

// Reasons sampling is impossible, for the exporter's metric.
const (
	ReasonPermission = "permission"     // no CAP_BPF/CAP_PERFMON (or CAP_SYS_ADMIN), or perf_event_paranoid
	ReasonNoBPF      = "no_bpf"         // a kernel without BPF perf-event programs or stack maps
	ReasonNoPerf     = "no_perf"        // perf_event_open refused the CPU clock
	ReasonKernel     = "kernel_too_old" // a kernel before MinKernel
	ReasonOther      = "other"
)

// MinKernel is the first Linux with what the program needs: BPF programs
// on perf events (4.9; stack maps and per-CPU hashes came in 4.6).
var MinKernel = placement.KernelVersion{Major: 4, Minor: 9}

// checkKernel refuses a kernel older than MinKernel by the release in
// procfs/sys/kernel/osrelease; one it cannot read is left to the loader.
func checkKernel(procfs string) error {
	v, err := placement.ReadKernelVersion(procfs)
	if err != nil || v.AtLeast(MinKernel.Major, MinKernel.Minor) {
		return nil
	}
	return &Error{ReasonKernel, fmt.Errorf("Linux %s is older than %s, the first with BPF programs on perf events", v, MinKernel)}
}

// Error says why the sampler could not start.
type Error struct {
	Reason string
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("cpu profile (%s): %v", e.Reason, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

const (
	// MaxDepth is the kernel's PERF_MAX_STACK_DEPTH: frames a stack keeps.
	MaxDepth = 127
	// maxStacks bounds the stack map between two drains; a stack that
	// finds its bucket taken by another is lost (counted, never guessed).
	maxStacks = 16384
	// maxKeys bounds the counts map (pid x kernel stack x user stack).
	maxKeys = 16384
	// maxPIDs bounds the processes sampled at once.
	maxPIDs = 1024

	keySize      = 16 // pid u32, kernel stack id i32, user stack id i32, pad u32
	flagUserStck = 1 << 8
)

// Program is the BPF program run on every CPU-clock sample: if the
// current thread group is in pidsFD's map, it takes the kernel and the
// user stack ids (negative: none or lost) from stacksFD and adds one to
// the key's count in countsFD (a per-CPU hash). A sample whose key cannot
// be inserted (the counts map is full) adds one to lostFD's entry 0 (a
// per-CPU array) instead: counted as lost, never silently gone.
func Program(pidsFD, stacksFD, countsFD, lostFD int) asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.StoreMem(asm.RFP, -4, asm.R0, asm.Word),
		asm.LoadMapPtr(asm.R1, pidsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		// Kernel stack, then the user stack.
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.LoadMapPtr(asm.R2, stacksFD),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnGetStackid.Call(),
		asm.StoreMem(asm.RFP, -28, asm.R0, asm.Word),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.LoadMapPtr(asm.R2, stacksFD),
		asm.Mov.Imm(asm.R3, flagUserStck),
		asm.FnGetStackid.Call(),
		asm.StoreMem(asm.RFP, -24, asm.R0, asm.Word),
		asm.StoreMem(asm.RFP, -32, asm.R7, asm.Word),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, -20, asm.R1, asm.Word),
	}
	// v = lookup(key); if found, add one in place (per CPU).
	insns = append(insns, addOne(countsFD, -32, "insert")...)
	insns = append(insns,
		asm.Ja.Label("exit"),
		asm.Mov.Imm(asm.R1, 1).WithSymbol("insert"),
		asm.StoreMem(asm.RFP, -40, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, countsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -32),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -40),
		asm.Mov.Imm(asm.R4, 0), // BPF_ANY
		asm.FnMapUpdateElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		// Not inserted: lost[0]++.
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, -44, asm.R1, asm.Word),
	)
	insns = append(insns, addOne(lostFD, -44, "exit")...)
	return append(insns,
		asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"),
		asm.Return(),
	)
}

// addOne looks up the key on the stack at keyOff in mapFD's map and adds
// one to its u64 value in place; a key it does not hold jumps to missing.
func addOne(mapFD int, keyOff int32, missing string) asm.Instructions {
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, mapFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, keyOff),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, missing),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
	}
}

// Sampler is the loaded program, its maps and one perf event per CPU.
type Sampler struct {
	pids, stacks, counts, lost *ebpf.Map
	prog                       *ebpf.Program
	events                     []int // perf event fds, one per online CPU
	cpus                       []int // the CPUs of events

	// lookupAndDelete takes one count out of the map (the counts map's
	// LookupAndDelete; a test's stand-in for an older kernel's).
	lookupAndDelete func(key, valueOut any) error
	// drain is how Drain takes the counts: DrainLookupAndDelete until the
	// kernel refuses it, then DrainIterateDelete.
	drain string
}

// How Drain takes the counts out of the map.
const (
	// DrainLookupAndDelete reads and deletes each key in one call
	// (BPF_MAP_LOOKUP_AND_DELETE_ELEM on a hash map: Linux 5.14+).
	DrainLookupAndDelete = "lookup_and_delete"
	// DrainIterateDelete reads each key, then deletes it: for kernels
	// without the above. A sample counted into a key between its read and
	// its delete is lost, as one added in place to an element that
	// LookupAndDelete has just taken is.
	DrainIterateDelete = "iterate_delete"
)

// Open loads the program and starts sampling every CPU at freq Hz; no
// process is sampled until SetPIDs names some.
func Open(freq int) (*Sampler, error) {
	if freq <= 0 {
		return nil, &Error{ReasonOther, fmt.Errorf("frequency %d Hz: must be positive", freq)}
	}
	s := &Sampler{}
	var err error
	if s.pids, err = ebpf.NewMap(&ebpf.MapSpec{Name: "walab_prof_pids", Type: ebpf.Hash, KeySize: 4, ValueSize: 1, MaxEntries: maxPIDs}); err != nil {
		return nil, classify(err)
	}
	if s.stacks, err = ebpf.NewMap(&ebpf.MapSpec{Name: "walab_prof_stk", Type: ebpf.StackTrace, KeySize: 4, ValueSize: 8 * MaxDepth, MaxEntries: maxStacks}); err != nil {
		s.Close()
		return nil, classify(err)
	}
	if s.counts, err = ebpf.NewMap(&ebpf.MapSpec{Name: "walab_prof_cnt", Type: ebpf.PerCPUHash, KeySize: keySize, ValueSize: 8, MaxEntries: maxKeys}); err != nil {
		s.Close()
		return nil, classify(err)
	}
	s.lookupAndDelete, s.drain = s.counts.LookupAndDelete, DrainLookupAndDelete
	if s.lost, err = ebpf.NewMap(&ebpf.MapSpec{Name: "walab_prof_lost", Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: 1}); err != nil {
		s.Close()
		return nil, classify(err)
	}
	if s.prog, err = ebpf.NewProgram(&ebpf.ProgramSpec{Name: "walab_prof", Type: ebpf.PerfEvent, License: "GPL",
		Instructions: Program(s.pids.FD(), s.stacks.FD(), s.counts.FD(), s.lost.FD())}); err != nil {
		s.Close()
		return nil, classify(err)
	}
	if err := s.attach(freq); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// OnlineCPUs is the kernel's list of online CPUs: the profiler samples
// every one, whatever CPUs the exporter itself may run on.
var OnlineCPUs = "/sys/devices/system/cpu/online"

// onlineCPUs reads OnlineCPUs.
func onlineCPUs() ([]int, error) {
	b, err := os.ReadFile(OnlineCPUs)
	if err != nil {
		return nil, &Error{ReasonOther, fmt.Errorf("the online CPUs: %w", err)}
	}
	cpus, err := irq.ParseCPUList(string(b))
	if err != nil {
		return nil, &Error{ReasonOther, fmt.Errorf("the online CPUs (%s): %w", OnlineCPUs, err)}
	}
	return cpus, nil
}

// attach opens a CPU-clock event on every online CPU, sampling at freq
// Hz, and runs the program on each sample. The CPUs are the kernel's
// online set, not runtime.NumCPU (the CPUs the exporter may run on): an
// exporter pinned off the database's cores still samples them.
func (s *Sampler) attach(freq int) error {
	cpus, err := onlineCPUs()
	if err != nil {
		return err
	}
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_SOFTWARE,
		Config: unix.PERF_COUNT_SW_CPU_CLOCK,
		Size:   uint32(binary.Size(unix.PerfEventAttr{})),
		Sample: uint64(freq),
		Bits:   unix.PerfBitFreq | unix.PerfBitDisabled,
	}
	for _, cpu := range cpus {
		fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			if errors.Is(err, unix.ENODEV) { // gone offline since the list was read
				continue
			}
			r := ReasonNoPerf
			if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
				r = ReasonPermission
			}
			return &Error{r, fmt.Errorf("perf_event_open on CPU %d: %w", cpu, err)}
		}
		s.events, s.cpus = append(s.events, fd), append(s.cpus, cpu)
		if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_BPF, s.prog.FD()); err != nil {
			return classify(fmt.Errorf("attaching to the perf event of CPU %d: %w", cpu, err))
		}
		if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
			return &Error{ReasonNoPerf, fmt.Errorf("enabling the perf event of CPU %d: %w", cpu, err)}
		}
	}
	if len(s.events) == 0 {
		return &Error{ReasonNoPerf, errors.New("no online CPU")}
	}
	return nil
}

func classify(err error) error {
	switch {
	case errors.Is(err, os.ErrPermission), errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return &Error{ReasonPermission, err}
	case errors.Is(err, ebpf.ErrNotSupported), errors.Is(err, unix.EINVAL):
		return &Error{ReasonNoBPF, err}
	}
	return &Error{ReasonOther, err}
}

// SetPIDs makes the sampled processes exactly pids (thread group ids);
// failed are those the map did not take (beyond maxPIDs), and the error
// says why.
func (s *Sampler) SetPIDs(pids []uint32) (failed []uint32, err error) {
	want := map[uint32]bool{}
	for _, p := range pids {
		want[p] = true
	}
	var (
		k    uint32
		v    uint8
		gone []uint32
	)
	it := s.pids.Iterate()
	for it.Next(&k, &v) {
		if !want[k] {
			gone = append(gone, k)
		}
		delete(want, k)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("cpu profile: reading the pid map: %w", err)
	}
	for _, p := range gone {
		_ = s.pids.Delete(p) // exited and deleted meanwhile: nothing to do
	}
	for p := range want {
		if uerr := s.pids.Update(p, uint8(1), ebpf.UpdateAny); uerr != nil {
			failed = append(failed, p)
			if err == nil {
				err = fmt.Errorf("cpu profile: sampling pid %d: %w", p, uerr)
			}
		}
	}
	return failed, err
}

// RawSample is one counted key of the map: the samples of one process
// with one pair of stacks (leaf first; nil when the id was negative).
type RawSample struct {
	PID              uint32
	Kernel, User     []uint64
	KernelID, UserID int32 // negative: -EFAULT (no such stack) or a lost one
	Count            uint64
	StackLost        bool // an id the stack map no longer holds
}

// Drain takes and removes every count, with its stacks, and frees the
// stacks it read. A sample counted while the drain runs is kept for the
// next one. A count that could not be taken is left in the map and the
// error says how many (the samples are not made up).
func (s *Sampler) Drain() ([]RawSample, error) {
	var (
		k    [keySize]byte
		vals []uint64
		keys [][keySize]byte
	)
	it := s.counts.Iterate()
	for it.Next(&k, &vals) {
		keys = append(keys, k)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("cpu profile: reading the counts: %w", err)
	}
	var (
		out    []RawSample
		failed int
		last   error
	)
	ids := map[int32]bool{}
	for _, k := range keys {
		err := s.take(k, &vals)
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			continue // the key went between the two reads: nothing to count
		}
		if err != nil {
			failed, last = failed+1, err
			continue
		}
		r := RawSample{PID: binary.NativeEndian.Uint32(k[0:]),
			KernelID: int32(binary.NativeEndian.Uint32(k[4:])), UserID: int32(binary.NativeEndian.Uint32(k[8:]))}
		for _, v := range vals {
			r.Count += v
		}
		r.Kernel, r.StackLost = s.stack(r.KernelID, r.StackLost)
		r.User, r.StackLost = s.stack(r.UserID, r.StackLost)
		ids[r.KernelID], ids[r.UserID] = true, true
		out = append(out, r)
	}
	for id := range ids {
		if id >= 0 {
			_ = s.stacks.Delete(uint32(id)) // already gone: nothing to free
		}
	}
	if failed > 0 {
		return out, fmt.Errorf("cpu profile: %d of %d counts not taken (%s): %w", failed, len(keys), s.drain, last)
	}
	return out, nil
}

// take reads and removes key's count: in one call while the kernel has
// it, else (ErrNotSupported: a hash map before Linux 5.14; EINVAL: no such
// command before 4.20) by a lookup and a delete, from then on.
func (s *Sampler) take(key [keySize]byte, vals *[]uint64) error {
	if s.drain == DrainLookupAndDelete {
		err := s.lookupAndDelete(key, vals)
		if !errors.Is(err, ebpf.ErrNotSupported) && !errors.Is(err, unix.EINVAL) {
			return err
		}
		s.drain = DrainIterateDelete
	}
	if err := s.counts.Lookup(key, vals); err != nil {
		return err
	}
	if err := s.counts.Delete(key); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
		return err
	}
	return nil
}

// DrainMethod is how Drain takes the counts: DrainLookupAndDelete, or
// DrainIterateDelete once the kernel refused the former.
func (s *Sampler) DrainMethod() string { return s.drain }

// Lost is the samples the program could not count since it was loaded:
// their key was new and the counts map full.
func (s *Sampler) Lost() (uint64, error) {
	var vals []uint64
	if err := s.lost.Lookup(uint32(0), &vals); err != nil {
		return 0, fmt.Errorf("cpu profile: reading the lost samples: %w", err)
	}
	var n uint64
	for _, v := range vals {
		n += v
	}
	return n, nil
}

// stack reads stack id (nil for a negative id); lost is set when the map
// no longer holds it.
func (s *Sampler) stack(id int32, lost bool) ([]uint64, bool) {
	if id < 0 {
		return nil, lost
	}
	var pcs [MaxDepth]uint64
	if err := s.stacks.Lookup(uint32(id), &pcs); err != nil {
		return nil, true
	}
	n := 0
	for n < MaxDepth && pcs[n] != 0 {
		n++
	}
	return append([]uint64(nil), pcs[:n]...), lost
}

// Close stops sampling and unloads the program.
func (s *Sampler) Close() error {
	var errs []error
	for _, fd := range s.events {
		errs = append(errs, unix.Close(fd))
	}
	s.events = nil
	if s.prog != nil {
		errs = append(errs, s.prog.Close())
	}
	for _, m := range []*ebpf.Map{s.counts, s.lost, s.stacks, s.pids} {
		if m != nil {
			errs = append(errs, m.Close())
		}
	}
	return errors.Join(errs...)
}

// ProgramStats are the program's runs and their time in the kernel since
// it was loaded, counted only while the kernel's BPF statistics are on
// (ebpf.EnableStats): what one sample costs the sampled thread.
func (s *Sampler) ProgramStats() (*ebpf.ProgramStats, error) { return s.prog.Stats() }
