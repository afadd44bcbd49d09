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
	// Skipped are the lines that could not be parsed ("line 7: ..."): a bad
	// line costs that line, never the file. At most maxSkipped are kept.
	Skipped []string
}

const maxSkipped = 16

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
			if len(out.Skipped) < maxSkipped {
				out.Skipped = append(out.Skipped, fmt.Sprintf("line %d: %v", i+2, err))
			}
			continue
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
	// The label runs to the first colon: arm64 prints IPI rows with the
	// label glued to a count of ten digits ("IPI0:2768808080 2844211768").
	start := 0
	for start < len(l) && (l[start] == ' ' || l[start] == '\t') {
		start++
	}
	if start == len(l) {
		return line, false, nil
	}
	colon := strings.IndexByte(l, ':')
	if colon < 0 {
		return line, false, fmt.Errorf("first field %q has no colon", strings.Fields(l)[0])
	}
	num := l[start:colon]
	pos := colon + 1
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

// actions reads the handler names after the chip. The kernel prints the
// chip, the hwirq number, the trigger ("Level"/"Edge", or "-edge" glued to
// the hwirq on x86), then the actions joined by ", "; an action name may
// hold spaces ("SGX ISR", "PCIe PME"), so they are the text after the
// trigger split on ", ", not the last word.
func actions(rest []string) []string {
	if len(rest) == 0 {
		return nil
	}
	after := -1
	for i, t := range rest {
		if isHwirqTrigger(t) || t == "Level" || t == "Edge" {
			after = i
		}
	}
	if after < 0 {
		// No trigger field: a bare hwirq number may come first.
		after = 0
		if len(rest) > 0 {
			if _, err := strconv.ParseUint(rest[0], 10, 64); err != nil {
				after = -1
			}
		}
	}
	text := strings.Join(rest[after+1:], " ")
	if text == "" {
		return nil
	}
	var out []string
	for _, a := range strings.Split(text, ", ") {
		if a = strings.TrimSpace(strings.TrimSuffix(a, ",")); a != "" {
			out = append(out, a)
		}
	}
	return out
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
