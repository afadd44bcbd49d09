package check

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// checkAlignment: every partition under the data directories' filesystems
// on the database host starts on a 4 KiB boundary (seed 001's first prerequisite); a stack
// without partitions is aligned by construction, and the check says so.
func (e *Env) checkAlignment(ctx context.Context, c plan.Check) (string, error) {
	f, found, err := e.eachMount(ctx, c, aligned)
	if err != nil {
		return "", err
	}
	return strings.Join(found, "; ") + " on " + f.Hostname + ": 4 KiB aligned", nil
}

// aligned says where the partitions under one data directory start, or
// why it is not aligned.
func aligned(f *hostapi.Facts, dir string, m *hostapi.Mount) (string, error) {
	if m.Block == "" {
		return "", fmt.Errorf("%s on %s: no block device known under %s (%s): alignment not known", dir, f.Hostname, m.Source, m.FSType)
	}
	if m.Aligned4K == nil {
		return fmt.Sprintf("%s: no partition under %s (whole disks)", dir, m.Source), nil
	}
	var starts []string
	for p, s := range m.PartitionStarts {
		starts = append(starts, fmt.Sprintf("%s at byte %d", p, s))
	}
	sort.Strings(starts)
	if !*m.Aligned4K {
		return "", fmt.Errorf("%s on %s: a partition is not 4 KiB aligned (%s)", dir, f.Hostname, strings.Join(starts, ", "))
	}
	return fmt.Sprintf("%s: %s", dir, strings.Join(starts, ", ")), nil
}

var alignmentCheck = checkKind{
	keys:     "targets or path",
	needs:    needs{exporter: true},
	validate: needDirs,
	run:      runOf((*Env).checkAlignment),
}

func init() { register("alignment", alignmentCheck) }
