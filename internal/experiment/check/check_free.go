package check

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

func (e *Env) checkFree(ctx context.Context, c plan.Check) (string, error) {
	_, found, err := e.eachMount(ctx, c, func(f *hostapi.Facts, dir string, m *hostapi.Mount) (string, error) {
		d := filepath.Clean(dir)
		if m.AvailBytes == nil {
			return "", fmt.Errorf("%s on %s: free space not known (statfs of %s failed on the database host)", d, f.Hostname, m.MountPoint)
		}
		avail := *m.AvailBytes
		if avail < uint64(c.Bytes) {
			return "", fmt.Errorf("%s on %s has %s free, the run needs %s", d, f.Hostname, human(avail), human(uint64(c.Bytes)))
		}
		return fmt.Sprintf("%s on %s: %s free (need %s)", d, f.Hostname, human(avail), human(uint64(c.Bytes))), nil
	})
	return strings.Join(found, "; "), err
}

func human(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}

var freeCheck = checkKind{
	keys:  "bytes, targets or path",
	needs: needs{exporter: true},
	validate: func(p *plan.Plan, c plan.Check) []string {
		out := needDirs(p, c)
		if c.Bytes == 0 {
			out = append(out, "bytes missing")
		}
		return out
	},
	run: runOf((*Env).checkFree),
}

func init() { register("free_space", freeCheck) }
