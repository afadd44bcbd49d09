package check

import (
	"fmt"
	"slices"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/irq"
)

// sameCPUs compares two kernel CPU lists ("0-3,8") as sets; subset asks
// only that every CPU of got is in want.
func sameCPUs(got, want string, subset bool) (bool, error) {
	g, err := irq.ParseCPUList(got)
	if err != nil {
		return false, fmt.Errorf("CPU list %q: %w", got, err)
	}
	w, err := irq.ParseCPUList(want)
	if err != nil {
		return false, fmt.Errorf("CPU list %q: %w", want, err)
	}
	for _, c := range g {
		if !slices.Contains(w, c) {
			return false, nil
		}
	}
	return subset || len(g) == len(w), nil
}

// validCPUs is the validation of a check's cpus key.
func validCPUs(c plan.Check) []string {
	if c.CPUs == "" {
		return []string{"cpus missing (a CPU list such as 0-3,8)"}
	}
	if _, err := irq.ParseCPUList(c.CPUs); err != nil {
		return []string{fmt.Sprintf("cpus %q: %v", c.CPUs, err)}
	}
	return nil
}
