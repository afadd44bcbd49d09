package check

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
)

// checkAlignment: every partition under the data directories' filesystems
// on the database host starts on a 4 KiB boundary (seed 001's first prerequisite); a stack
// without partitions is aligned by construction, and the check says so.
func (e *Env) checkAlignment(ctx context.Context, c plan.Check) (string, error) {
	f, dirs, mounts, err := e.dirMounts(ctx, c)
	if err != nil {
		return "", err
	}
	var found []string
	for i, m := range mounts {
		if m.Block == "" {
			return "", fmt.Errorf("%s on %s: no block device known under %s (%s): alignment not known", dirs[i], f.Hostname, m.Source, m.FSType)
		}
		if m.Aligned4K == nil {
			found = append(found, fmt.Sprintf("%s: no partition under %s (whole disks)", dirs[i], m.Source))
			continue
		}
		var starts []string
		for p, s := range m.PartitionStarts {
			starts = append(starts, fmt.Sprintf("%s at byte %d", p, s))
		}
		sort.Strings(starts)
		if !*m.Aligned4K {
			return "", fmt.Errorf("%s on %s: a partition is not 4 KiB aligned (%s)", dirs[i], f.Hostname, strings.Join(starts, ", "))
		}
		found = append(found, fmt.Sprintf("%s: %s", dirs[i], strings.Join(starts, ", ")))
	}
	return strings.Join(found, "; ") + " on " + f.Hostname + ": 4 KiB aligned", nil
}

var alignmentCheck = checkKind{
	keys:     "targets or path",
	needs:    needs{exporter: true},
	validate: needDirs,
	run:      runOf((*Env).checkAlignment),
}

func init() { register("alignment", alignmentCheck) }
