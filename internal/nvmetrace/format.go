// Package nvmetrace counts, per NVMe write command, where the host asked
// the drive to place the data: a BPF program on the kernel's
// nvme:nvme_setup_cmd tracepoint adds up Write commands (opcode 0x01) and
// their logical blocks per controller, namespace, directive type (CDW12
// bits 23:20: 0 none, 1 streams, 2 data placement) and directive value
// (CDW13 bits 31:16: stream id or placement handle), in a per-CPU hash map
// the exporter reads at scrape time. No event reaches user space.
//
// The program is written with cilium/ebpf's asm package rather than
// compiled from C: it is twenty-odd instructions, the field offsets come
// from the tracepoint's format file at load time (no kernel struct layout
// is compiled in), and the build needs no clang.
package nvmetrace

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// Field is one field of a tracepoint record.
type Field struct {
	Offset, Size int
	Signed       bool
}

// ParseFormat reads a tracefs events/<group>/<event>/format file: each
// "field:<type> <name>[<n>]; offset:<o>; size:<s>; signed:<0|1>;" line
// gives one field by name. Lines it cannot read are errors naming them;
// a name given twice is an error.
func ParseFormat(text string) (map[string]Field, error) {
	out := map[string]Field{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "field:") {
			continue
		}
		var decl string
		f := Field{Offset: -1, Size: -1}
		for _, part := range strings.Split(line, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(part), ":")
			if !ok {
				continue
			}
			var err error
			switch k {
			case "field":
				decl = strings.TrimSpace(v)
			case "offset":
				f.Offset, err = strconv.Atoi(v)
			case "size":
				f.Size, err = strconv.Atoi(v)
			case "signed":
				f.Signed = v == "1"
			}
			if err != nil {
				return nil, fmt.Errorf("format line %d %q: %s: %w", n, line, k, err)
			}
		}
		name := fieldName(decl)
		if name == "" || f.Offset < 0 || f.Size <= 0 || f.Offset > 1<<16 || f.Size > 1<<12 {
			return nil, fmt.Errorf("format line %d %q: want field:<decl>; offset:<n>; size:<n>;", n, line)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("format line %d: field %s twice", n, name)
		}
		out[name] = f
	}
	return out, sc.Err()
}

// fieldName is the identifier a C declaration declares: "u8 cdw10[24]" is
// cdw10, "__data_loc char[] name" is name.
func fieldName(decl string) string {
	// Drop every [..]: "u8 cdw10[24]" -> "u8 cdw10", "char[] name" -> "char name".
	var b strings.Builder
	depth := 0
	for _, c := range decl {
		switch {
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	f := strings.Fields(b.String())
	if len(f) < 2 {
		return ""
	}
	name := f[len(f)-1]
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return ""
		}
	}
	return name
}

// Layout is where the program reads the fields it needs.
type Layout struct {
	CtrlID, NSID, Opcode, CDW10 Field
}

// LayoutOf picks the fields of nvme:nvme_setup_cmd and checks their sizes.
func LayoutOf(fields map[string]Field) (Layout, error) {
	var l Layout
	for _, want := range []struct {
		name string
		dst  *Field
		size int
	}{{"ctrl_id", &l.CtrlID, 4}, {"nsid", &l.NSID, 4}, {"opcode", &l.Opcode, 1}, {"cdw10", &l.CDW10, 24}} {
		f, ok := fields[want.name]
		if !ok {
			return l, fmt.Errorf("nvme_setup_cmd has no field %s", want.name)
		}
		if f.Size != want.size {
			return l, fmt.Errorf("nvme_setup_cmd field %s is %d bytes, want %d", want.name, f.Size, want.size)
		}
		*want.dst = f
	}
	return l, nil
}
