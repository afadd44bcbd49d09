package nvmetrace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// The I/O-size tracer: a second program, on the block layer's
// block:block_bio_queue tracepoint, counts every bio (the block layer's
// unit of I/O as a filesystem or an application's direct I/O submits it)
// once, at the block device it was submitted to, by that device (dev_t),
// operation (the first letter of rwbs after a preflush F: R read, W write,
// D discard, ...) and size bucket, in a per-CPU hash map read at scrape
// time. Seed 001 reads the I/O sizes MySQL sends (reads mostly 16 KiB,
// writes from 512 B up) to pick the RAID stripe unit; this is that
// profile, per device. Bios without data (a flush) are not counted.
//
// Why bios and not requests (block:block_rq_issue): an md array or a
// bio-based dm device issues no requests, so it would have no profile; and
// under native NVMe multipath (Debian's default) requests go to a hidden
// path disk whose device number sysfs does not show, so they could not be
// named. A bio is traced once, where it was first submitted: the array's
// bios at the array, the clones md or dm send down at the members, a
// multipath head's at the head. Its size is before the block layer merges
// or splits it for the driver.

// IOSizeBounds are the buckets' upper bounds in bytes, 512 B to 1 MiB by
// powers of two; bucket len(IOSizeBounds) is every larger request.
var IOSizeBounds = func() []uint32 {
	var b []uint32
	for s := uint32(512); s <= 1<<20; s *= 2 {
		b = append(b, s)
	}
	return b
}()

// IOSizeMaxKeys bounds the map: device x operation x bucket combinations
// (13 buckets a device and operation); beyond it new ones are not counted.
const IOSizeMaxKeys = 8192

const (
	ioKeySize   = 8  // dev u32, op u8, bucket u8, pad u16
	ioValueSize = 16 // bios u64, bytes u64
)

// IOSizeKey is what one count is kept for.
type IOSizeKey struct {
	Dev    uint32 // the device's kernel dev_t: major << 20 | minor
	Op     byte   // rwbs's operation letter ('R', 'W', 'D', ...); 0 after a lone F
	Bucket uint8  // index into IOSizeBounds; len(IOSizeBounds): larger
}

// Major and Minor split the kernel's dev_t (MKDEV: 12 and 20 bits).
func (k IOSizeKey) Major() uint32 { return k.Dev >> 20 }

// Minor is the dev_t's minor number.
func (k IOSizeKey) Minor() uint32 { return k.Dev & (1<<20 - 1) }

// IOSizeCount is the bios of one key since the tracer started.
type IOSizeCount struct {
	IOSizeKey
	Bios  uint64
	Bytes uint64
}

// BlockLayout is where the program reads block_bio_queue's fields.
type BlockLayout struct {
	Dev, Sectors, RWBS Field
}

// BlockLayoutOf picks the fields of block:block_bio_queue and checks their
// sizes (rwbs is char[8] on older kernels, char[10] on newer ones).
func BlockLayoutOf(fields map[string]Field) (BlockLayout, error) {
	var l BlockLayout
	for _, want := range []struct {
		name    string
		dst     *Field
		minSize int
		maxSize int
	}{{"dev", &l.Dev, 4, 4}, {"nr_sector", &l.Sectors, 4, 4}, {"rwbs", &l.RWBS, 2, 64}} {
		f, ok := fields[want.name]
		if !ok {
			return l, fmt.Errorf("block_bio_queue has no field %s", want.name)
		}
		if f.Size < want.minSize || f.Size > want.maxSize {
			return l, fmt.Errorf("block_bio_queue field %s is %d bytes, want %d to %d", want.name, f.Size, want.minSize, want.maxSize)
		}
		*want.dst = f
	}
	return l, nil
}

// IOSizeProgram builds the BPF program for a layout of block_bio_queue's
// record, counting into the map with file descriptor mapFD: the size is
// nr_sector 512-byte sectors, and its bucket is found by comparing it with
// each bound in turn (no loop for the verifier to bound).
func IOSizeProgram(l BlockLayout, mapFD int) asm.Instructions {
	rwbs := int16(l.RWBS.Offset)
	insns := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	insns = append(insns, loadLE32(asm.R7, l.Sectors.Offset)...)
	insns = append(insns,
		asm.JEq.Imm(asm.R7, 0, "exit"),
		asm.LSh.Imm(asm.R7, 9), // bytes
		// r8 = the operation letter: rwbs[0], or rwbs[1] after a preflush F.
		asm.LoadMem(asm.R8, asm.R6, rwbs, asm.Byte),
		asm.JNE.Imm(asm.R8, 'F', "bucket"),
		asm.LoadMem(asm.R8, asm.R6, rwbs+1, asm.Byte),
		asm.Mov.Imm(asm.R9, 0).WithSymbol("bucket"),
	)
	for _, b := range IOSizeBounds {
		insns = append(insns, asm.JLE.Imm(asm.R7, int32(b), "bucketed"), asm.Add.Imm(asm.R9, 1))
	}
	dev := loadLE32(asm.R2, l.Dev.Offset)
	dev[0] = dev[0].WithSymbol("bucketed")
	insns = append(insns, dev...)
	insns = append(insns,
		asm.StoreMem(asm.RFP, -8, asm.R2, asm.Word),
		asm.StoreMem(asm.RFP, -4, asm.R8, asm.Byte),
		asm.StoreMem(asm.RFP, -3, asm.R9, asm.Byte),
		asm.Mov.Imm(asm.R2, 0),
		asm.StoreMem(asm.RFP, -2, asm.R2, asm.Half),
	)
	return append(insns, countInto(mapFD, -8, -24)...)
}

// countInto adds one request of r7 bytes to the map's value at the key on
// the stack at keyOff, inserting {1, r7} (built at valOff) when the key is
// new; then exits.
func countInto(mapFD int, keyOff, valOff int32) asm.Instructions {
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, mapFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, keyOff),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "insert"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
		asm.LoadMem(asm.R1, asm.R0, 8, asm.DWord),
		asm.Add.Reg(asm.R1, asm.R7),
		asm.StoreMem(asm.R0, 8, asm.R1, asm.DWord),
		asm.Ja.Label("exit"),
		asm.Mov.Imm(asm.R1, 1).WithSymbol("insert"),
		asm.StoreMem(asm.RFP, int16(valOff), asm.R1, asm.DWord),
		asm.StoreMem(asm.RFP, int16(valOff+8), asm.R7, asm.DWord),
		asm.LoadMapPtr(asm.R1, mapFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, keyOff),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, valOff),
		asm.Mov.Imm(asm.R4, 0), // BPF_ANY
		asm.FnMapUpdateElem.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"),
		asm.Return(),
	}
}

// IOSizeTracer is the loaded, attached I/O-size program and its map.
type IOSizeTracer struct {
	counts *ebpf.Map
	prog   *ebpf.Program
	link   io.Closer
}

// OpenIOSize reads block_bio_queue's format under tracefs (mounting it
// there for the time if it may, see withTracefs), loads the program and
// attaches it. The error is an *Error with a reason.
func OpenIOSize(tracefs string) (*IOSizeTracer, error) {
	spec := &ebpf.MapSpec{Name: "walab_io_size", Type: ebpf.PerCPUHash, KeySize: ioKeySize, ValueSize: ioValueSize, MaxEntries: IOSizeMaxKeys}
	m, prog, lk, err := loadAttached(tracefs, "block", "block_bio_queue", spec, func(fields map[string]Field, mapFD int) (asm.Instructions, error) {
		l, err := BlockLayoutOf(fields)
		return IOSizeProgram(l, mapFD), err
	})
	if err != nil {
		return nil, err
	}
	return &IOSizeTracer{counts: m, prog: prog, link: lk}, nil
}

// Counts sums the per-CPU values of every key, sorted by device,
// operation and bucket.
func (t *IOSizeTracer) Counts() ([]IOSizeCount, error) {
	var (
		k    [ioKeySize]byte
		vals [][ioValueSize]byte
		out  []IOSizeCount
	)
	it := t.counts.Iterate()
	for it.Next(&k, &vals) {
		c := IOSizeCount{IOSizeKey: IOSizeKey{Dev: binary.NativeEndian.Uint32(k[0:]), Op: k[4], Bucket: k[5]}}
		for _, v := range vals {
			c.Bios += binary.NativeEndian.Uint64(v[0:])
			c.Bytes += binary.NativeEndian.Uint64(v[8:])
		}
		out = append(out, c)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("I/O-size trace: reading the map: %w", err)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].IOSizeKey, out[j].IOSizeKey
		if a.Dev != b.Dev {
			return a.Dev < b.Dev
		}
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		return a.Bucket < b.Bucket
	})
	return out, nil
}

// Close detaches and unloads.
func (t *IOSizeTracer) Close() error {
	return errors.Join(t.link.Close(), t.prog.Close(), t.counts.Close())
}
