package irq

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
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
	var p InterruptsParser
	return p.Parse(b)
}

// InterruptsParser parses /proc/interrupts again and again in the same
// memory: on a 256-CPU host the file is megabytes of counts and it is read
// on every scrape. It reads bytes with a cursor and allocates per file, not
// per line or field: the counts of all lines share one array, kept for the
// next Parse, and the chip and action names are substrings of one string
// holding only those names (a caller that keeps a name across scrapes
// should strings.Clone it, or it keeps that string alive).
// BenchmarkParseInterrupts measures it. The zero value is ready.
type InterruptsParser struct {
	cpus   []int
	counts []uint64 // backing array: line k's counts are counts[k*len(cpus):]
	lines  []Line   // Chip and Actions still unset: see finish
	chips  []span   // per line
	acts   []span   // per line: a range of names below
	names  []span   // every action name, in line order
	text   strings.Builder
	tokens []span // scratch: the fields after the counts of the current line
}

// span is a [start, end) range of InterruptsParser.text.
type span struct{ start, end int }

// Parse is ParseInterrupts(b), except that the result's Lines and their
// Counts and Actions slices are only valid until the next Parse: they reuse
// the parser's memory. A parser is not safe for concurrent use.
func (p *InterruptsParser) Parse(b []byte) (*Interrupts, error) {
	if err := checkComplete(b); err != nil {
		return nil, fmt.Errorf("interrupts: %w", err)
	}
	nl := bytes.IndexByte(b, '\n')
	cpus, err := parseHeader(string(b[:nl]))
	if err != nil {
		return nil, fmt.Errorf("interrupts: %w", err)
	}
	p.reset(cpus, bytes.Count(b, []byte{'\n'})-1)
	out := &Interrupts{CPUs: cpus}
	rest := b[nl+1:]
	for lineNo := 2; len(rest) > 0; lineNo++ {
		i := bytes.IndexByte(rest, '\n')
		err := p.line(rest[:i])
		rest = rest[i+1:]
		if err != nil && len(out.Skipped) < maxSkipped {
			out.Skipped = append(out.Skipped, fmt.Sprintf("line %d: %v", lineNo, err))
		}
	}
	out.Lines = p.finish()
	return out, nil
}

// reset readies the parser for a file of at most maxLines numbered lines.
// The counts array is not cleared: every line kept has all its counts
// written.
func (p *InterruptsParser) reset(cpus []int, maxLines int) {
	p.cpus = cpus
	if n := maxLines * len(cpus); cap(p.counts) < n {
		p.counts = make([]uint64, n)
	}
	p.lines, p.chips, p.acts, p.names = p.lines[:0], p.chips[:0], p.acts[:0], p.names[:0]
	p.text = strings.Builder{}
	p.text.Grow(64 * maxLines) // the names of a line are a few dozen bytes
}

// line parses one row (without its newline). Blank and named (NMI, LOC...)
// rows are skipped without error.
func (p *InterruptsParser) line(l []byte) error {
	// The label runs to the first colon: arm64 prints IPI rows with the
	// label glued to a count of ten digits ("IPI0:2768808080 2844211768").
	start := skipBlanks(l, 0)
	if start == len(l) {
		return nil
	}
	colon := bytes.IndexByte(l, ':')
	if colon < 0 {
		f := strings.Fields(string(l))
		if len(f) == 0 {
			return nil // only other white space ("\r"): blank too
		}
		return fmt.Errorf("first field %q has no colon", f[0])
	}
	n, ok := parseIRQNumber(l[start:colon])
	if !ok {
		return nil // NMI, LOC, ERR, MIS...: per-CPU rows without a device
	}
	if n < 0 {
		return fmt.Errorf("negative irq %d", n)
	}
	k := len(p.lines)
	counts := p.counts[k*len(p.cpus) : (k+1)*len(p.cpus) : (k+1)*len(p.cpus)]
	pos, err := p.parseCounts(l, colon+1, n, counts)
	if err != nil {
		return err
	}
	chip, acts := p.trailer(l[pos:])
	p.lines = append(p.lines, Line{IRQ: n, Counts: counts})
	p.chips = append(p.chips, chip)
	p.acts = append(p.acts, acts)
	return nil
}

// parseIRQNumber is strconv.Atoi on the label, without converting a label of
// plain digits to a string first.
func parseIRQNumber(num []byte) (int, bool) {
	if len(num) == 0 || len(num) > 9 {
		n, err := strconv.Atoi(string(num))
		return n, err == nil
	}
	n := 0
	for _, ch := range num {
		d := ch - '0'
		if d > 9 {
			n, err := strconv.Atoi(string(num)) // "+5", "-1", "NMI"
			return n, err == nil
		}
		n = n*10 + int(d)
	}
	return n, true
}

// parseCounts reads one count per CPU column starting at pos and returns
// the position after the last. A field of 1-19 digits is read in the loop;
// anything else (longer, not a number, missing) goes through strconv, whose
// result or error is the same as if every field did.
func (p *InterruptsParser) parseCounts(l []byte, pos, irq int, dst []uint64) (int, error) {
	for c := range dst {
		// One space, then a digit: the common case, without a call.
		if pos+1 < len(l) && l[pos] == ' ' && l[pos+1]-'0' <= 9 {
			pos++
		} else {
			pos = skipBlanks(l, pos)
		}
		st := pos
		var v uint64
		for pos < len(l) {
			d := l[pos] - '0'
			if d > 9 {
				break
			}
			v = v*10 + uint64(d)
			pos++
		}
		if pos == st || pos-st > 19 || (pos < len(l) && l[pos] != ' ' && l[pos] != '\t') {
			end := fieldEnd(l, st)
			f := string(l[st:end])
			if f == "" {
				return pos, fmt.Errorf("irq %d has %d fields, the header lists %d CPUs", irq, c, len(dst))
			}
			var err error
			if v, err = strconv.ParseUint(f, 10, 64); err != nil {
				return pos, fmt.Errorf("irq %d: count %q for CPU%d: %w", irq, f, p.cpus[c], err)
			}
			pos = end
		}
		dst[c] = v
	}
	return pos, nil
}

// trailer reads the chip and the action names after the counts into the
// name text. Plain ASCII with a single action name after the trigger (the
// common case) is read here; anything else goes through actions, the
// general reading.
func (p *InterruptsParser) trailer(t []byte) (chip, acts span) {
	first := len(p.names)
	acts = span{first, first}
	p.tokens = p.tokens[:0]
	for i := 0; i < len(t); {
		if t[i] >= 0x80 {
			return p.trailerGeneral(t)
		}
		if asciiSpace(t[i]) {
			i++
			continue
		}
		j := i
		for j < len(t) && t[j] < 0x80 && !asciiSpace(t[j]) {
			j++
		}
		p.tokens = append(p.tokens, span{i, j})
		i = j
	}
	if len(p.tokens) == 0 {
		return span{}, acts
	}
	chip = p.addName(t[p.tokens[0].start:p.tokens[0].end])
	names := p.tokens[1+actionsStart(t, p.tokens[1:]):]
	switch {
	case len(names) == 0:
		return chip, acts
	case len(names) == 1 && bytes.IndexByte(t[names[0].start:names[0].end], ',') < 0:
		p.names = append(p.names, p.addName(t[names[0].start:names[0].end]))
		return chip, span{first, first + 1}
	}
	return p.trailerGeneral(t)
}

// trailerGeneral is the reading of the fields after the counts for any
// text: the first field is the chip, the rest go through actions.
func (p *InterruptsParser) trailerGeneral(t []byte) (chip, acts span) {
	first := len(p.names)
	rest := strings.Fields(string(t))
	if len(rest) == 0 {
		return span{}, span{first, first}
	}
	chip = p.addName([]byte(rest[0]))
	for _, a := range actions(rest[1:]) {
		p.names = append(p.names, p.addName([]byte(a)))
	}
	return chip, span{first, len(p.names)}
}

// actionsStart is the index of the first action-name token among the
// tokens after the chip, as actions decides it.
func actionsStart(t []byte, toks []span) int {
	after := -1
	for i, tok := range toks {
		f := t[tok.start:tok.end]
		if isHwirqTriggerBytes(f) || string(f) == "Level" || string(f) == "Edge" {
			after = i
		}
	}
	if after < 0 && len(toks) > 0 && isUint(t[toks[0].start:toks[0].end]) {
		after = 0 // no trigger field: a bare hwirq number may come first
	}
	return after + 1
}

func (p *InterruptsParser) addName(b []byte) span {
	start := p.text.Len()
	p.text.Write(b)
	return span{start, p.text.Len()}
}

// finish sets every line's chip and action names from the name text.
func (p *InterruptsParser) finish() []Line {
	if len(p.lines) == 0 {
		return nil
	}
	text := p.text.String()
	names := make([]string, len(p.names))
	for i, s := range p.names {
		names[i] = text[s.start:s.end]
	}
	for k := range p.lines {
		p.lines[k].Chip = text[p.chips[k].start:p.chips[k].end]
		if a := p.acts[k]; a.end > a.start {
			p.lines[k].Actions = names[a.start:a.end:a.end]
		}
	}
	return p.lines
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

// isHwirqTrigger matches "5-edge" / "0-fasteoi": the field before the actions.
func isHwirqTrigger(s string) bool {
	num, _, ok := strings.Cut(s, "-")
	if !ok {
		return false
	}
	_, err := strconv.ParseUint(num, 10, 64)
	return err == nil
}

// isHwirqTriggerBytes is isHwirqTrigger on bytes.
func isHwirqTriggerBytes(f []byte) bool {
	i := bytes.IndexByte(f, '-')
	return i >= 0 && isUint(f[:i])
}

// isUint reports whether strconv.ParseUint(s, 10, 64) succeeds.
func isUint(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	if len(s) > 19 {
		_, err := strconv.ParseUint(string(s), 10, 64)
		return err == nil
	}
	for _, ch := range s {
		if ch-'0' > 9 {
			return false
		}
	}
	return true
}

// asciiSpace is unicode.IsSpace for bytes below 0x80 ('\n' never occurs
// inside a line).
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n'
}

// skipBlanks returns the index of the first byte at or after i that is
// neither ' ' nor '\t'. The kernel pads every count to ten columns, so most
// of the file is runs of spaces: they are skipped eight bytes at a time.
func skipBlanks(l []byte, i int) int {
	for i+8 <= len(l) {
		x := binary.LittleEndian.Uint64(l[i:]) ^ 0x2020202020202020
		if x != 0 {
			i += bits.TrailingZeros64(x) >> 3 // the first byte that is not ' '
			break
		}
		i += 8
	}
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i
}

func fieldEnd(l []byte, i int) int {
	for i < len(l) && l[i] != ' ' && l[i] != '\t' {
		i++
	}
	return i
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

// checkComplete checks the file is non-empty and ends in a newline.
func checkComplete(b []byte) error {
	if len(b) == 0 {
		return errors.New("file is empty")
	}
	if b[len(b)-1] != '\n' {
		return ErrTruncated
	}
	return nil
}

// splitLines checks the file is complete and non-empty and splits it.
func splitLines(b []byte) ([]string, error) {
	if err := checkComplete(b); err != nil {
		return nil, err
	}
	raw := bytes.Split(b[:len(b)-1], []byte{'\n'})
	out := make([]string, len(raw))
	for i, l := range raw {
		out[i] = string(l)
	}
	return out, nil
}
