package cpuprof

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// mapping is one executable mapping of /proc/PID/maps.
type mapping struct {
	start, end, off uint64
	path            string
}

// readMaps reads a process's executable file mappings.
func readMaps(procfs string, pid uint32) ([]mapping, error) {
	f, err := os.Open(filepath.Join(procfs, strconv.Itoa(int(pid)), "maps"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || len(fs[1]) < 3 || fs[1][2] != 'x' || !strings.HasPrefix(fs[5], "/") {
			continue
		}
		lo, hi, ok := strings.Cut(fs[0], "-")
		if !ok {
			continue
		}
		m := mapping{path: strings.Join(fs[5:], " ")}
		var e1, e2, e3 error
		m.start, e1 = strconv.ParseUint(lo, 16, 64)
		m.end, e2 = strconv.ParseUint(hi, 16, 64)
		m.off, e3 = strconv.ParseUint(fs[2], 16, 64)
		if e1 != nil || e2 != nil || e3 != nil {
			return nil, fmt.Errorf("pid %d maps: %q", pid, sc.Text())
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// Symbolizer turns program counters into frames. It caches each ELF file
// (by path, size and modification time) and each process's maps until
// Forget.
type Symbolizer struct {
	procfs  string
	kernel  table
	kErr    error
	kReason string // why kernel frames are unnamed ("": they are named)
	mu      sync.Mutex
	files   map[string]*elfFile
	maps    map[uint32][]mapping
	denied  bool // the last maps read was refused: user frames unnamed
}

// Why frames of a kind cannot be named: a bounded set.
const (
	// UnnamedNeedsSyslog: /proc/kallsyms shows this process zeros, and
	// CAP_SYSLOG would show it the addresses (kernel.kptr_restrict 0 or 1).
	UnnamedNeedsSyslog = "needs_cap_syslog"
	// UnnamedKptrRestrict: kernel.kptr_restrict is 2: no process is shown
	// the addresses, whatever its capabilities.
	UnnamedKptrRestrict = "kptr_restrict"
	// UnnamedNeedsPtrace: a sampled process's /proc/PID/maps is refused
	// (another user's process: reading it needs CAP_SYS_PTRACE).
	UnnamedNeedsPtrace = "needs_cap_sys_ptrace"
	// UnnamedUnreadable: /proc/kallsyms could not be read at all.
	UnnamedUnreadable = "unreadable"
)

type elfFile struct {
	size  int64
	mtime time.Time
	syms  *elfSyms // nil: not an ELF file this reads
}

// NewSymbolizer reads the kernel's symbols from procfs/kallsyms; if it
// cannot, kernel frames are Unknown and KernelErr says why.
func NewSymbolizer(procfs string) *Symbolizer {
	s := &Symbolizer{procfs: procfs, files: map[string]*elfFile{}, maps: map[uint32][]mapping{}}
	s.kernel, s.kErr = ReadKallsyms(filepath.Join(procfs, "kallsyms"))
	switch {
	case s.kErr == nil:
	case errors.Is(s.kErr, errZeroAddresses):
		s.kReason = UnnamedNeedsSyslog
		if b, err := os.ReadFile(filepath.Join(procfs, "sys/kernel/kptr_restrict")); err == nil && strings.TrimSpace(string(b)) == "2" {
			s.kReason = UnnamedKptrRestrict
		}
	default:
		s.kReason = UnnamedUnreadable
	}
	return s
}

// KernelErr is why kernel frames cannot be named (nil: they can).
func (s *Symbolizer) KernelErr() error { return s.kErr }

// Unnamed is why frames of each kind ("kernel", "user") cannot be named
// now; a kind that can be is absent.
func (s *Symbolizer) Unnamed() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	if s.kReason != "" {
		out["kernel"] = s.kReason
	}
	if s.denied {
		out["user"] = UnnamedNeedsPtrace
	}
	return out
}

// Kernel symbolizes a kernel program counter.
func (s *Symbolizer) Kernel(pc uint64) Frame {
	f := Frame{Function: Unknown, Module: ModuleKernel, Addr: pc}
	if sym, ok := s.kernel.find(pc); ok {
		f.Function = sym.name
	}
	return f
}

// User symbolizes a program counter of process pid; ok is false when it
// could not be (the process is gone or the address is in no file
// mapping, e.g. JIT code).
func (s *Symbolizer) User(pid uint32, pc uint64) (Frame, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	maps, ok := s.maps[pid]
	if !ok {
		var err error
		maps, err = readMaps(s.procfs, pid) // gone: its frames are unknown
		s.maps[pid] = maps
		if err == nil || errors.Is(err, os.ErrPermission) {
			s.denied = err != nil
		}
	}
	for _, m := range maps {
		if pc < m.start || pc >= m.end {
			continue
		}
		fr := Frame{Function: Unknown, Module: filepath.Base(m.path), Path: m.path}
		e := s.file(pid, m.path)
		if e == nil {
			return fr, false
		}
		a, ok := e.vaddr(pc - m.start + m.off)
		if !ok {
			return fr, false
		}
		fr.Addr, fr.Function = a, e.name(a)
		return fr, fr.Function != Unknown
	}
	return Frame{Function: Unknown, Module: Unknown}, false
}

// file is the cached symbol table of path as process pid sees it (through
// its root, so a containerized mysqld's files are found), nil if unreadable.
func (s *Symbolizer) file(pid uint32, path string) *elfSyms {
	p := filepath.Join(s.procfs, strconv.Itoa(int(pid)), "root", path)
	st, err := os.Stat(p)
	if err != nil {
		p = path
		if st, err = os.Stat(p); err != nil {
			return nil
		}
	}
	if c, ok := s.files[path]; ok && c.size == st.Size() && c.mtime.Equal(st.ModTime()) {
		return c.syms
	}
	syms, _ := readELF(p) // not ELF: its frames are unknown
	s.files[path] = &elfFile{size: st.Size(), mtime: st.ModTime(), syms: syms}
	return syms
}

// Forget drops the cached maps (processes map and unmap files between
// drains); the ELF files stay cached.
func (s *Symbolizer) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maps = map[uint32][]mapping{}
}
