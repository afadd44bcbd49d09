package irq

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxCPUID bounds CPU ids read from lists, so a corrupt "0-4294967295"
// cannot make us allocate gigabytes (the kernel's NR_CPUS tops out at 8192).
const MaxCPUID = 1 << 16

// ParseCPUList parses the kernel's list format ("0-3,8,10-11"; "" is the
// empty set) as used by cpulist and *_affinity_list. The result is sorted
// and without duplicates.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var set []bool
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cpuID(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		b := a
		if isRange {
			// "0-7:2" (stride) is accepted by some writers; the kernel
			// never prints it, so it is refused rather than half-parsed.
			if b, err = cpuID(hi); err != nil {
				return nil, fmt.Errorf("cpu list %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("cpu list %q: range %s is backwards", s, part)
			}
		}
		if len(set) <= b {
			set = append(set, make([]bool, b+1-len(set))...)
		}
		for c := a; c <= b; c++ {
			set[c] = true
		}
	}
	var out []int
	for c, on := range set {
		if on {
			out = append(out, c)
		}
	}
	return out, nil
}

func cpuID(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty CPU id")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxCPUID {
		return 0, fmt.Errorf("bad CPU id %q", s)
	}
	return n, nil
}

// appendCPUList appends the CPUs of the list in b to dst, as ParseCPUList
// does, without allocating when dst has room: the kernel's lists are
// ascending ranges of plain numbers, read here directly; anything else goes
// through ParseCPUList for the same result or error.
func appendCPUList(dst []int, b []byte) ([]int, error) {
	start, end := 0, len(b)
	for start < end && asciiSpace(b[start]) {
		start++
	}
	for end > start && asciiSpace(b[end-1]) {
		end--
	}
	n := len(dst)
	next := 0 // the smallest CPU the next range may start at
	for i := start; i < end; {
		lo, j, ok := cpuIDAt(b, i)
		hi := lo
		if ok && j < end && b[j] == '-' {
			hi, j, ok = cpuIDAt(b, j+1)
		}
		if !ok || lo < next || hi < lo || (j < end && b[j] != ',') || j+1 == end {
			return parseCPUListSlow(dst[:n], b)
		}
		for c := lo; c <= hi; c++ {
			dst = append(dst, c)
		}
		next, i = hi+1, j+1
	}
	return dst, nil
}

// cpuIDAt reads a CPU id of plain digits at b[i:] and returns the index
// after it; ok is false when there is none or it is above MaxCPUID.
func cpuIDAt(b []byte, i int) (id, j int, ok bool) {
	j = i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' && j-i < 6 {
		id = id*10 + int(b[j]-'0')
		j++
	}
	return id, j, j > i && id <= MaxCPUID && (j == len(b) || b[j] < '0' || b[j] > '9')
}

func parseCPUListSlow(dst []int, b []byte) ([]int, error) {
	cpus, err := ParseCPUList(string(b))
	if err != nil {
		return dst, err
	}
	return append(dst, cpus...), nil
}
