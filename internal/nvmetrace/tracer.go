package nvmetrace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// opWrite is the NVM command set's Write opcode.
const opWrite = 0x01

// MaxKeys bounds the map: controller x namespace x directive x id
// combinations seen; beyond it new combinations are not counted (and
// Dropped says so), never made up.
const MaxKeys = 4096

// Key is what one count is kept for.
type Key struct {
	Ctrl  uint32 // controller instance: nvme<Ctrl>
	NSID  uint32
	DType uint8  // directive type: 0 none, 1 streams, 2 data placement
	DSpec uint16 // directive specific: stream id or placement handle
}

// Count is the writes of one key since the tracer started.
type Count struct {
	Key
	Commands uint64
	Blocks   uint64 // logical blocks (NLB + 1 per command)
}

const (
	keySize   = 12 // ctrl u32, nsid u32, dtype u8, pad u8, dspec u16
	valueSize = 16 // commands u64, blocks u64
)

// Reasons tracing is impossible, for the exporter's metric.
const (
	ReasonNoTracefs         = "no_tracefs"         // not mounted, and nowhere to mount it (or a kernel without it)
	ReasonTracefsPermission = "tracefs_permission" // not mounted and mounting it refused, or mounted and not readable by this user
	ReasonNoTracepoint      = "no_tracepoint"      // nvme driver not loaded, or a kernel without the event
	ReasonPermission        = "permission"         // no CAP_BPF/CAP_PERFMON (or CAP_SYS_ADMIN)
	ReasonNoBPF             = "no_bpf"             // a kernel without BPF or tracepoint programs
	ReasonOther             = "other"
)

// Error says why the tracer could not start.
type Error struct {
	Reason string
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("BPF tracer (%s): %v", e.Reason, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Tracer is a loaded, attached program and its map.
type Tracer struct {
	counts *ebpf.Map
	prog   *ebpf.Program
	link   io.Closer
}

// Program builds the BPF program for a layout of the tracepoint record,
// counting into the map with file descriptor mapFD. Tracepoint records are
// read with loads of at most their alignment (cdw10 starts at an odd
// offset), so multi-byte values are assembled from bytes.
func Program(l Layout, mapFD int) asm.Instructions {
	cdw := int16(l.CDW10.Offset)
	insns := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.LoadMem(asm.R2, asm.R6, int16(l.Opcode.Offset), asm.Byte),
		asm.JNE.Imm(asm.R2, opWrite, "exit"),
		// r7 = NLB + 1: CDW12 bits 15:0.
		asm.LoadMem(asm.R7, asm.R6, cdw+8, asm.Byte),
		asm.LoadMem(asm.R2, asm.R6, cdw+9, asm.Byte),
		asm.LSh.Imm(asm.R2, 8),
		asm.Or.Reg(asm.R7, asm.R2),
		asm.Add.Imm(asm.R7, 1),
		// r8 = directive type: CDW12 bits 23:20, the high nibble of its third byte.
		asm.LoadMem(asm.R8, asm.R6, cdw+10, asm.Byte),
		asm.RSh.Imm(asm.R8, 4),
		// r9 = directive specific: CDW13 bits 31:16.
		asm.LoadMem(asm.R9, asm.R6, cdw+14, asm.Byte),
		asm.LoadMem(asm.R2, asm.R6, cdw+15, asm.Byte),
		asm.LSh.Imm(asm.R2, 8),
		asm.Or.Reg(asm.R9, asm.R2),
	}
	insns = append(insns, loadLE32(asm.R2, l.CtrlID.Offset)...)
	insns = append(insns, asm.StoreMem(asm.RFP, -16, asm.R2, asm.Word))
	insns = append(insns, loadLE32(asm.R2, l.NSID.Offset)...)
	insns = append(insns,
		asm.StoreMem(asm.RFP, -12, asm.R2, asm.Word),
		asm.StoreMem(asm.RFP, -8, asm.R8, asm.Byte),
		asm.Mov.Imm(asm.R2, 0),
		asm.StoreMem(asm.RFP, -7, asm.R2, asm.Byte),
		asm.StoreMem(asm.RFP, -6, asm.R9, asm.Half),
	)
	// Count one command of r7 blocks at the key (the map is per CPU).
	return append(insns, countInto(mapFD, -16, -32)...)
}

// loadLE32 loads a u32 of the record at off into dst (r6 is the record;
// little-endian hosts), with one load when aligned, else four byte loads.
func loadLE32(dst asm.Register, off int) asm.Instructions {
	if off%4 == 0 {
		return asm.Instructions{asm.LoadMem(dst, asm.R6, int16(off), asm.Word)}
	}
	out := asm.Instructions{asm.LoadMem(dst, asm.R6, int16(off), asm.Byte)}
	for i := 1; i < 4; i++ {
		out = append(out,
			asm.LoadMem(asm.R3, asm.R6, int16(off+i), asm.Byte),
			asm.LSh.Imm(asm.R3, int32(8*i)),
			asm.Or.Reg(dst, asm.R3))
	}
	return out
}

// Open reads the tracepoint's format under tracefs (mounting it there
// for the time if it may, see withTracefs), loads the program and
// attaches it to nvme:nvme_setup_cmd. The error is an *Error with a
// reason.
func Open(tracefs string) (*Tracer, error) {
	spec := &ebpf.MapSpec{Name: "walab_nvme_wr", Type: ebpf.PerCPUHash, KeySize: keySize, ValueSize: valueSize, MaxEntries: MaxKeys}
	m, prog, lk, err := loadAttached(tracefs, "nvme", "nvme_setup_cmd", spec, func(fields map[string]Field, mapFD int) (asm.Instructions, error) {
		l, err := LayoutOf(fields)
		return Program(l, mapFD), err
	})
	if err != nil {
		return nil, err
	}
	return &Tracer{counts: m, prog: prog, link: lk}, nil
}

// loadAttached loads group:event's program (load) and attaches it, with
// tracefs at tracefs for the time.
func loadAttached(tracefs, group, event string, spec *ebpf.MapSpec, build func(map[string]Field, int) (asm.Instructions, error)) (m *ebpf.Map, prog *ebpf.Program, lk io.Closer, err error) {
	err = withTracefs(tracefs, func() error {
		if m, prog, err = load(tracefs, group, event, spec, build); err != nil {
			return err
		}
		if lk, err = attachTracepoint(tracefs, group, event, prog); err != nil {
			prog.Close()
			m.Close()
			return classify(err)
		}
		return nil
	})
	return m, prog, lk, err
}

// load reads group:event's format under tracefs, creates the map of spec
// and loads the program build makes for the format's fields and the map.
// The error is an *Error with a reason.
func load(tracefs, group, event string, spec *ebpf.MapSpec, build func(map[string]Field, int) (asm.Instructions, error)) (*ebpf.Map, *ebpf.Program, error) {
	b, err := os.ReadFile(filepath.Join(tracefs, "events", group, event, "format"))
	if err != nil {
		return nil, nil, &Error{ReasonNoTracepoint, err}
	}
	fields, err := ParseFormat(string(b))
	if err != nil {
		return nil, nil, &Error{ReasonOther, err}
	}
	if _, err := build(fields, -1); err != nil {
		return nil, nil, &Error{ReasonOther, err}
	}
	m, err := ebpf.NewMap(spec)
	if err != nil {
		return nil, nil, classify(err)
	}
	insns, _ := build(fields, m.FD())
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: spec.Name, Type: ebpf.TracePoint, License: "GPL", Instructions: insns})
	if err != nil {
		m.Close()
		return nil, nil, classify(err)
	}
	return m, prog, nil
}

func classify(err error) error {
	switch {
	case errors.Is(err, os.ErrPermission):
		return &Error{ReasonPermission, err}
	case errors.Is(err, ebpf.ErrNotSupported):
		return &Error{ReasonNoBPF, err}
	case errors.Is(err, os.ErrNotExist):
		return &Error{ReasonNoTracepoint, err}
	}
	return &Error{ReasonOther, err}
}

// Counts sums the per-CPU values of every key, sorted.
func (t *Tracer) Counts() ([]Count, error) {
	var (
		k    [keySize]byte
		vals [][valueSize]byte
		out  []Count
	)
	it := t.counts.Iterate()
	for it.Next(&k, &vals) {
		c := Count{Key: Key{
			Ctrl:  binary.NativeEndian.Uint32(k[0:]),
			NSID:  binary.NativeEndian.Uint32(k[4:]),
			DType: k[8],
			DSpec: binary.NativeEndian.Uint16(k[10:]),
		}}
		for _, v := range vals {
			c.Commands += binary.NativeEndian.Uint64(v[0:])
			c.Blocks += binary.NativeEndian.Uint64(v[8:])
		}
		out = append(out, c)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("placement trace: reading the map: %w", err)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Key, out[j].Key
		if a.Ctrl != b.Ctrl {
			return a.Ctrl < b.Ctrl
		}
		if a.NSID != b.NSID {
			return a.NSID < b.NSID
		}
		if a.DType != b.DType {
			return a.DType < b.DType
		}
		return a.DSpec < b.DSpec
	})
	return out, nil
}

// Keys is how many keys the map holds (MaxKeys: full, new ones are lost).
func (t *Tracer) Keys() int {
	n := 0
	var k [keySize]byte
	var v [][valueSize]byte
	it := t.counts.Iterate()
	for it.Next(&k, &v) {
		n++
	}
	return n
}

// Close detaches and unloads.
func (t *Tracer) Close() error {
	return errors.Join(t.link.Close(), t.prog.Close(), t.counts.Close())
}
