package irq

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Softirqs is /proc/softirqs: per softirq type, one count per CPU column.
type Softirqs struct {
	CPUs  []int
	Types []SoftirqType // in file order
}

// SoftirqType is one row ("NET_RX").
type SoftirqType struct {
	Name   string
	Counts []uint64
}

// maxSoftirqTypes bounds the label set: the kernel has 10 (NR_SOFTIRQS).
const maxSoftirqTypes = 32

// ParseSoftirqs parses the contents of /proc/softirqs.
func ParseSoftirqs(b []byte) (*Softirqs, error) {
	lines, err := splitLines(b)
	if err != nil {
		return nil, fmt.Errorf("softirqs: %w", err)
	}
	cpus, err := parseHeader(lines[0])
	if err != nil {
		return nil, fmt.Errorf("softirqs: %w", err)
	}
	out := &Softirqs{CPUs: cpus}
	seen := map[string]bool{}
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		name, ok := strings.CutSuffix(f[0], ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("softirqs: line %d: first field %q is not TYPE:", i+2, f[0])
		}
		if seen[name] {
			return nil, fmt.Errorf("softirqs: line %d: type %s repeated", i+2, name)
		}
		seen[name] = true
		if len(f)-1 != len(cpus) {
			return nil, fmt.Errorf("softirqs: line %d: %s has %d counts, the header lists %d CPUs", i+2, name, len(f)-1, len(cpus))
		}
		t := SoftirqType{Name: name, Counts: make([]uint64, len(cpus))}
		for c := range cpus {
			if t.Counts[c], err = strconv.ParseUint(f[1+c], 10, 64); err != nil {
				return nil, fmt.Errorf("softirqs: line %d: %s count %q for CPU%d: %w", i+2, name, f[1+c], cpus[c], err)
			}
		}
		out.Types = append(out.Types, t)
		if len(out.Types) > maxSoftirqTypes {
			return nil, fmt.Errorf("softirqs: more than %d types", maxSoftirqTypes)
		}
	}
	if len(out.Types) == 0 {
		return nil, errors.New("softirqs: no softirq rows after the header")
	}
	return out, nil
}
