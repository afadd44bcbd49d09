package cpuprof

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// ModuleKernel is the module of kernel frames.
const ModuleKernel = "kernel"

// Unknown is the function of a frame no symbol table covers.
const Unknown = "[unknown]"

// Frame is one symbolized program counter.
type Frame struct {
	Function string // symbol name; "0x<addr>" for a function known only by its start (.eh_frame_hdr); Unknown
	Module   string // ModuleKernel, or the base name of the mapped file
	Path     string // the mapped file ("" for the kernel)
	Addr     uint64 // the address in the module's ELF (the kernel's: as run)
}

type symbol struct {
	start, end uint64 // end 0: up to the next symbol's start
	name       string
}

// table is a sorted symbol table.
type table []symbol

func (t table) sorted() table {
	sort.Slice(t, func(i, j int) bool { return t[i].start < t[j].start })
	return t
}

// find is the symbol covering addr: the last one starting at or before it,
// if it has no size or addr is inside it.
func (t table) find(addr uint64) (symbol, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].start > addr }) - 1
	if i < 0 {
		return symbol{}, false
	}
	s := t[i]
	if s.end != 0 && addr >= s.end {
		return symbol{}, false
	}
	return s, true
}

// errZeroAddresses is kallsyms shown without its addresses.
var errZeroAddresses = errors.New("no kernel text addresses readable (kernel.kptr_restrict hides them from a process without CAP_SYSLOG, or from every process at 2)")

// ReadKallsyms reads the kernel's text symbols. Addresses all zero mean
// kptr_restrict hides them from this user: refused, not guessed.
func ReadKallsyms(path string) (table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var t table
	nonzero := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 || !strings.ContainsAny(fs[1], "tTwW") {
			continue
		}
		a, err := strconv.ParseUint(fs[0], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, sc.Text(), err)
		}
		nonzero = nonzero || a != 0
		t = append(t, symbol{start: a, name: fs[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(t) == 0 || !nonzero {
		return nil, fmt.Errorf("%s: %w", path, errZeroAddresses)
	}
	return t.sorted(), nil
}

// loadSeg is a PT_LOAD segment: file offsets [off, off+filesz) are mapped
// at vaddr.
type loadSeg struct{ off, filesz, vaddr uint64 }

// elfSyms is what one ELF file gives for symbolizing.
type elfSyms struct {
	funcs  table     // .symtab (or its debug file's), else .dynsym: STT_FUNC with sizes
	starts table     // function starts from .eh_frame_hdr: for what funcs does not cover
	loads  []loadSeg // to turn a file offset into an ELF address
}

// debugDir is where Debian's -dbgsym packages put files named by build id.
var debugDir = "/usr/lib/debug"

// readELF reads the function symbols of the file at path: .symtab if it
// has one, else the debug file of its build id under debugDir if there
// is one, else .dynsym; and .eh_frame_hdr's function starts.
func readELF(path string) (*elfSyms, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := &elfSyms{}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			out.loads = append(out.loads, loadSeg{off: p.Off, filesz: p.Filesz, vaddr: p.Vaddr})
		}
	}
	syms, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) {
		if dbg := debugFile(f); dbg != "" {
			if df, derr := elf.Open(dbg); derr == nil {
				syms, err = df.Symbols()
				df.Close()
			}
		}
	}
	if err != nil {
		syms, _ = f.DynamicSymbols() // none: the .eh_frame_hdr starts alone
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 && s.Section != elf.SHN_UNDEF {
			out.funcs = append(out.funcs, symbol{start: s.Value, end: s.Value + s.Size, name: funcName(s.Name)})
		}
	}
	out.funcs = out.funcs.sorted()
	out.starts = ehFrameStarts(f)
	return out, nil
}

// funcName is a symbol's name as perf shows it: without a version
// (pthread_rwlock_unlock@@GLIBC_2.34) and C++ names demangled without
// their parameters (Item_func_concat::val_str).
func funcName(sym string) string {
	if i := strings.IndexByte(sym, '@'); i > 0 {
		sym = sym[:i]
	}
	return demangle.Filter(sym, demangle.NoParams)
}

// debugFile is the path of f's separate debug file by build id, or "".
func debugFile(f *elf.File) string {
	sec := f.Section(".note.gnu.build-id")
	if sec == nil {
		return ""
	}
	b, err := sec.Data()
	if err != nil || len(b) < 16 {
		return ""
	}
	namesz, descsz := binary.LittleEndian.Uint32(b[0:]), binary.LittleEndian.Uint32(b[4:])
	off := 12 + (namesz+3)&^3
	if descsz < 2 || uint64(off)+uint64(descsz) > uint64(len(b)) {
		return ""
	}
	id := hex.EncodeToString(b[off : off+descsz])
	p := filepath.Join(debugDir, ".build-id", id[:2], id[2:]+".debug")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// ehFrameStarts reads the sorted function starts of .eh_frame_hdr's
// search table, in the one encoding GCC and LLVM write (table
// DW_EH_PE_datarel|sdata4, count udata4); any other gives none.
func ehFrameStarts(f *elf.File) table {
	sec := f.Section(".eh_frame_hdr")
	if sec == nil {
		return nil
	}
	b, err := sec.Data()
	if err != nil || len(b) < 12 || b[0] != 1 || b[2] != 0x03 || b[3] != 0x3b || b[1] != 0x1b {
		return nil
	}
	n := uint64(binary.LittleEndian.Uint32(b[8:]))
	if 12+8*n > uint64(len(b)) {
		return nil
	}
	t := make(table, 0, n)
	for i := range n {
		rel := int32(binary.LittleEndian.Uint32(b[12+8*i:]))
		a := uint64(int64(sec.Addr) + int64(rel))
		t = append(t, symbol{start: a, name: "0x" + strconv.FormatUint(a, 16)})
	}
	return t.sorted()
}

// vaddr turns an offset of the file into its ELF address.
func (e *elfSyms) vaddr(off uint64) (uint64, bool) {
	for _, l := range e.loads {
		if off >= l.off && off < l.off+l.filesz {
			return off - l.off + l.vaddr, true
		}
	}
	return 0, false
}

// name is the function at ELF address a: a symbol, else a start from
// .eh_frame_hdr, else Unknown.
func (e *elfSyms) name(a uint64) string {
	if s, ok := e.funcs.find(a); ok {
		return s.name
	}
	if s, ok := e.starts.find(a); ok {
		return s.name
	}
	return Unknown
}

// findName is find's name, or Unknown.
func (t table) findName(addr uint64) string {
	if s, ok := t.find(addr); ok {
		return s.name
	}
	return Unknown
}
