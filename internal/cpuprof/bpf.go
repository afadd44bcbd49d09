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
	"runtime"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"
)

// Reasons sampling is impossible, for the exporter's metric.
const (
	ReasonPermission = "permission" // no CAP_BPF/CAP_PERFMON (or CAP_SYS_ADMIN), or perf_event_paranoid
	ReasonNoBPF      = "no_bpf"     // a kernel without BPF perf-event programs or stack maps
	ReasonNoPerf     = "no_perf"    // perf_event_open refused the CPU clock
	ReasonOther      = "other"
)

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
// the key's count in countsFD (a per-CPU hash).
func Program(pidsFD, stacksFD, countsFD int) asm.Instructions {
	return asm.Instructions{
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
		// v = lookup(key); if found, add one in place (per CPU).
		asm.LoadMapPtr(asm.R1, countsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -32),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "insert"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
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
		asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"),
		asm.Return(),
	}
}

// Sampler is the loaded program, its maps and one perf event per CPU.
type Sampler struct {
	pids, stacks, counts *ebpf.Map
	prog                 *ebpf.Program
	events               []int // perf event fds, one per online CPU
}

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
	if s.prog, err = ebpf.NewProgram(&ebpf.ProgramSpec{Name: "walab_prof", Type: ebpf.PerfEvent, License: "GPL",
		Instructions: Program(s.pids.FD(), s.stacks.FD(), s.counts.FD())}); err != nil {
		s.Close()
		return nil, classify(err)
	}
	if err := s.attach(freq); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// attach opens a CPU-clock event on every CPU, sampling at freq Hz, and
// runs the program on each sample.
func (s *Sampler) attach(freq int) error {
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_SOFTWARE,
		Config: unix.PERF_COUNT_SW_CPU_CLOCK,
		Size:   uint32(binary.Size(unix.PerfEventAttr{})),
		Sample: uint64(freq),
		Bits:   unix.PerfBitFreq | unix.PerfBitDisabled,
	}
	for cpu := range runtime.NumCPU() {
		fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			if errors.Is(err, unix.ENODEV) { // an offline CPU
				continue
			}
			r := ReasonNoPerf
			if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
				r = ReasonPermission
			}
			return &Error{r, fmt.Errorf("perf_event_open on CPU %d: %w", cpu, err)}
		}
		s.events = append(s.events, fd)
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
// next one.
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
	var out []RawSample
	ids := map[int32]bool{}
	for _, k := range keys {
		if err := s.counts.LookupAndDelete(k, &vals); err != nil {
			continue // the key went between the two reads: nothing to count
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
	return out, nil
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
	for _, m := range []*ebpf.Map{s.counts, s.stacks, s.pids} {
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
