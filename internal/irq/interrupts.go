package irq

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Interrupts is /proc/interrupts: the CPU ids of its columns and the
// numbered interrupt lines. Named rows (NMI, LOC, ERR, ...) are not kept:
// they have no device and no affinity.
type Interrupts struct {
	CPUs  []int // CPU id of each count column, from the header ("CPU0 CPU2 ...")
	Lines []Line
}

// Line is one numbered interrupt line.
type Line struct {
	IRQ     int
	Counts  []uint64 // one per column of Interrupts.CPUs
	Chip    string   // "IR-PCI-MSIX-0000:10:00.0" ("" if absent)
	Actions []string // handler names, e.g. ["nvme0q5"]; shared lines have several
}

// ErrTruncated marks a file that ends in the middle of a line.
var ErrTruncated = errors.New("file is truncated (no trailing newline)")

// ParseInterrupts parses the contents of /proc/interrupts.
func ParseInterrupts(b []byte) (*Interrupts, error) {
	lines, err := splitLines(b)
	if err != nil {
		return nil, fmt.Errorf("interrupts: %w", err)
	}
	cpus, err := parseHeader(lines[0])
	if err != nil {
		return nil, fmt.Errorf("interrupts: %w", err)
	}
	out := &Interrupts{CPUs: cpus}
	for i, l := range lines[1:] {
		line, ok, err := parseInterruptLine(l, cpus)
		if err != nil {
			return nil, fmt.Errorf("interrupts: line %d: %w", i+2, err)
		}
		if ok {
			out.Lines = append(out.Lines, line)
		}
	}
	return out, nil
}

// parseInterruptLine reads one row with a cursor rather than
// strings.Fields: on a 256-CPU host the file is megabytes of counts and this
// runs every scrape. ok is false for blank and named (NMI, LOC...) rows.
func parseInterruptLine(l string, cpus []int) (line Line, ok bool, err error) {
	pos := 0
	name := nextField(l, &pos)
	if name == "" {
		return line, false, nil
	}
	num, hasColon := strings.CutSuffix(name, ":")
	if !hasColon {
		return line, false, fmt.Errorf("first field %q has no colon", name)
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return line, false, nil // NMI, LOC, ERR, MIS...: per-CPU rows without a device
	}
	if n < 0 {
		return line, false, fmt.Errorf("negative irq %d", n)
	}
	line = Line{IRQ: n, Counts: make([]uint64, len(cpus))}
	for c := range cpus {
		f := nextField(l, &pos)
		if f == "" {
			return line, false, fmt.Errorf("irq %d has %d fields, the header lists %d CPUs", n, c, len(cpus))
		}
		if line.Counts[c], err = strconv.ParseUint(f, 10, 64); err != nil {
			return line, false, fmt.Errorf("irq %d: count %q for CPU%d: %w", n, f, cpus[c], err)
		}
	}
	rest := strings.Fields(l[pos:])
	if len(rest) > 0 {
		line.Chip = rest[0]
		line.Actions = actions(rest[1:])
	}
	return line, true, nil
}

// nextField returns the next space-separated field at or after *pos.
func nextField(s string, pos *int) string {
	i := *pos
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	for j < len(s) && s[j] != ' ' && s[j] != '\t' {
		j++
	}
	*pos = j
	return s[i:j]
}

// actions picks the handler names off the end of a line. The kernel prints
// them last, joined by ", ", after the chip-specific hwirq/trigger fields,
// so walk back from the end while the previous token ends in a comma.
func actions(rest []string) []string {
	if len(rest) == 0 {
		return nil
	}
	start := len(rest) - 1
	for start > 0 && strings.HasSuffix(rest[start-1], ",") {
		start--
	}
	out := make([]string, 0, len(rest)-start)
	for _, a := range rest[start:] {
		if a = strings.TrimSuffix(a, ","); a != "" {
			out = append(out, a)
		}
	}
	// A line with only hwirq-trigger and no handler ("0-edge") has no action.
	if len(out) == 1 && start == 0 && strings.Contains(out[0], "-") && isHwirqTrigger(out[0]) {
		return nil
	}
	return out
}

// isHwirqTrigger matches "5-edge" / "0-fasteoi": the field before the actions.
func isHwirqTrigger(s string) bool {
	num, _, ok := strings.Cut(s, "-")
	if !ok {
		return false
	}
	_, err := strconv.ParseUint(num, 10, 64)
	return err == nil
}

// parseHeader reads "CPU0 CPU1 ..." into CPU ids.
func parseHeader(h string) ([]int, error) {
	f := strings.Fields(h)
	if len(f) == 0 {
		return nil, errors.New("empty header line")
	}
	cpus := make([]int, len(f))
	seen := make(map[int]bool, len(f))
	for i, s := range f {
		id, ok := strings.CutPrefix(s, "CPU")
		if !ok {
			return nil, fmt.Errorf("header field %q is not CPUn", s)
		}
		n, err := strconv.Atoi(id)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("header field %q is not CPUn", s)
		}
		if seen[n] {
			return nil, fmt.Errorf("header lists CPU%d twice", n)
		}
		seen[n] = true
		cpus[i] = n
	}
	return cpus, nil
}

// splitLines checks the file is complete and non-empty and splits it.
func splitLines(b []byte) ([]string, error) {
	if len(b) == 0 {
		return nil, errors.New("file is empty")
	}
	if b[len(b)-1] != '\n' {
		return nil, ErrTruncated
	}
	raw := bytes.Split(b[:len(b)-1], []byte{'\n'})
	out := make([]string, len(raw))
	for i, l := range raw {
		out[i] = string(l)
	}
	return out, nil
}
